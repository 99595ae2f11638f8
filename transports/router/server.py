"""`memesh message router`: the local message router, a socket surface like MCP and HTTP (docs/adr/0004).

Owner-only: the socket is created 0600 inside the 0700 MeMesh folder, and each connection's peer credentials
(SO_PEERCRED) must name this user. Presence is written to the database (agent_sessions) through the door, so
briefing, intake rules and fallback can read it; what is live right now is the router's own memory, which discover
reads (`switchboard.Router`).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import socket
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


async def serve(path: Path | None = None, db_path: Path | None = None, ready: asyncio.Event | None = None) -> None:
    """Run the router on `path` (default: router.sock in the MeMesh folder) until SIGINT/SIGTERM or cancellation;
    RuntimeError when another router answers there or the database cannot be used."""
    target = path or paths.router_socket()
    paths.ensure_private_dir(target.parent)
    if target.exists():
        if await asyncio.to_thread(router_answers, target):
            raise RuntimeError(f"a router is already running at {target}")
        target.unlink()  # a socket left by a router that was killed
    router = Router(Resources(db_path=db_path))
    try:
        await router.start()
    except RuntimeError:
        await asyncio.to_thread(router.resources.close)
        raise
    old_umask = os.umask(0o177)  # the socket is born 0600: no window where another user could connect
    try:
        server = await asyncio.start_unix_server(owner_only(router.handle), path=str(target), limit=wire.LINE_LIMIT)
    finally:
        os.umask(old_umask)
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
        with contextlib.suppress(FileNotFoundError):
            target.unlink()
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
