"""`memesh message router`: the local message router, a socket surface like MCP and HTTP (docs/adr/0004).

Owner-only: the socket is created 0600 inside the 0700 MeMesh folder (a folder another user owns is refused), and
each connection's peer credentials (SO_PEERCRED) must name this user. One router per socket: the first holds an
exclusive lock on router.sock.lock for as long as it runs (a second one started at the same moment finds it held),
and a router only ever removes the socket it made itself. Anything but a socket at the socket's path (a regular
file, a symlink, dangling or not) is refused by name, never deleted. Presence is written to the database
(agent_sessions) through the door, so briefing, intake rules and fallback can read it; what is live right now is
the router's own memory, which discover reads (`switchboard.Router`).
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import os
import signal
import socket
import stat
import struct
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path

from memesh import paths
from memesh.app.resources import Resources, router_answers
from memesh.core import router_wire as wire
from memesh.transports.router.switchboard import Router

Handler = Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]]


def peer_is_owner(writer: asyncio.StreamWriter) -> bool:
    """Only this user's processes may talk to the router (the socket's mode says so too; this checks the peer)."""
    sock = writer.get_extra_info("socket")
    if sock is None or not hasattr(socket, "SO_PEERCRED"):
        return sock is not None
    creds = sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
    _pid, uid, _gid = struct.unpack("3i", creds)
    return bool(uid == os.getuid())


def owner_only(handle: Handler) -> Handler:
    """`handle` for connections from this user's processes; any other peer is closed unanswered."""

    async def checked(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if not peer_is_owner(writer):
            writer.close()
            return
        await handle(reader, writer)

    return checked


def _hold_lock(target: Path) -> int:
    """The descriptor holding the one-router lock of `target` (released when closed, or when the process dies);
    RuntimeError when another router holds it."""
    fd = os.open(target.with_name(target.name + ".lock"), os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        raise RuntimeError(f"a router is already running at {target}") from None
    return fd


_NOT_A_SOCKET = {stat.S_IFLNK: "a symbolic link", stat.S_IFREG: "a regular file", stat.S_IFDIR: "a folder"}


def _clear_the_way(target: Path) -> None:
    """Remove a socket a killed router left at `target`; RuntimeError when a router answers there or something
    other than a socket sits there (it is not ours to delete)."""
    try:
        found = os.lstat(target)
    except FileNotFoundError:
        return
    if not stat.S_ISSOCK(found.st_mode):
        kind = _NOT_A_SOCKET.get(stat.S_IFMT(found.st_mode), "not a socket")
        raise RuntimeError(f"{target} is {kind}, not the router's socket: move it aside and start the router again")
    if router_answers(target):  # a router of an older version, which took no lock
        raise RuntimeError(f"a router is already running at {target}")
    target.unlink()


def _remove_own(target: Path, made: tuple[int, int]) -> None:
    """Unlink `target` when it is still the socket this router made (device, inode), never another's."""
    with contextlib.suppress(FileNotFoundError):
        found = os.lstat(target)
        if (found.st_dev, found.st_ino) == made:
            target.unlink()


async def serve(
    path: Path | None = None, db_path: Path | str | None = None, ready: asyncio.Event | None = None
) -> None:
    """Run the router on `path` (default: router.sock in the MeMesh folder) until SIGINT/SIGTERM or cancellation;
    RuntimeError when another router runs there, the folder is another user's, something other than a socket sits
    at the path, or the database cannot be used."""
    target = path or paths.router_socket()
    paths.ensure_private_dir(target.parent)
    if (uid := paths.foreign_owner(target.parent)) is not None:
        raise RuntimeError(paths.foreign_folder(target.parent, uid))
    lock = _hold_lock(target)
    try:
        await asyncio.to_thread(_clear_the_way, target)
        await _serve_on(target, db_path, ready)
    finally:
        os.close(lock)


async def _serve_on(target: Path, db_path: Path | str | None, ready: asyncio.Event | None) -> None:
    router = Router(Resources(db_path=db_path))
    try:
        await router.start()
    except RuntimeError:
        await asyncio.to_thread(router.resources.close)
        raise
    old_umask = os.umask(0o177)  # the socket is born 0600: no window where another user could connect
    try:
        server = await asyncio.start_unix_server(owner_only(router.handle), path=str(target), limit=wire.LINE_LIMIT)
    except BaseException:
        await asyncio.to_thread(router.close)
        raise
    finally:
        os.umask(old_umask)
    made = os.lstat(target)
    target.chmod(0o600)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.add_signal_handler(sig, stop.set)
    try:
        async with server:
            if ready is not None:
                ready.set()
            print(f"memesh router: listening on {target}", file=sys.stderr, flush=True)
            await stop.wait()
    finally:
        for sig in (signal.SIGINT, signal.SIGTERM):
            with contextlib.suppress(NotImplementedError, RuntimeError):
                loop.remove_signal_handler(sig)
        router.stop("the router stopped")
        _remove_own(target, (made.st_dev, made.st_ino))
        await asyncio.to_thread(router.close)


def main() -> int:
    """`memesh message router`: serve in the foreground; exit 0 on SIGINT/SIGTERM, 1 when one already runs or the
    database cannot be used."""
    try:
        asyncio.run(serve())
    except RuntimeError as exc:
        print(f"Error: {exc}", file=sys.stderr)
        return 1
    return 0
