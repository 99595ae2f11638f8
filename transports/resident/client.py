"""The resident server's client, in `memesh` (transports/cli/launch.py) and `memesh-hook` (transports/hooks/main.py):
ask the user's resident server to run the command, and when none answers, start one for the next call.

Imports `_socket`, `os`, `sys`, `time` and MeMesh's few small modules (memesh.resident, the hook client and wires):
no `returns`, no schemas, no store. What `ask` gives back is one of
- (status, stdout bytes, stderr bytes): the server ran the command; the caller writes the bytes and exits;
- a reason (str): the server accepted the request and then failed or went silent. The command may have run, so a
  write must not run again here: the caller says so (a hook records an error outcome), and only a command of
  `wire.REPEATABLE` runs again in the caller's own process;
- START: nothing ran and no server answers (none yet, or a stale socket): the caller answers itself, then
  `start`s one; REPLACE, the same where the server that answered belongs to another install (an upgrade) and is
  exiting: the new one is started without waiting for the old one to let go of the lock;
- NOT_TAKEN: nothing ran, and starting a server would not help (turned off, busy, another user's socket, a line
  the server does not run): the caller answers itself.
"""

from __future__ import annotations

# ruff: noqa: PTH103, PTH109, PTH116, PTH120, SIM105  (os, not pathlib: pathlib costs the client several ms of imports)
import _socket
import os
import sys
import time

from memesh import resident
from memesh.transports.hooks import wire as frames
from memesh.transports.hooks.client import _peer_uid, _read
from memesh.transports.resident import wire

NOT_TAKEN = 0
START = 1
REPLACE = 2  # START, where the server that answered belongs to another install and is exiting: start the new one

TYPE_CHECKING = False  # not typing's: the client imports nothing it does not need
if TYPE_CHECKING:
    from typing import IO


def _flags(stream: IO[str] | None) -> str:
    line = bool(getattr(stream, "line_buffering", False))
    through = bool(getattr(stream, "write_through", False))
    return f"{int(line)}{int(through)}"


def _shape() -> bytes:
    """The client's stdio as the server must reproduce it (wire.py's `io` field)."""
    out, err = sys.stdout, sys.stderr
    mask = os.umask(0o077)
    os.umask(mask)
    ttys = "".join("1" if _tty(fd) else "0" for fd in (0, 1, 2))
    return "\0".join(
        (
            getattr(out, "encoding", None) or "utf-8",
            getattr(out, "errors", None) or "strict",
            getattr(err, "encoding", None) or "utf-8",
            getattr(err, "errors", None) or "backslashreplace",
            str(mask),
            ttys,
            _flags(out),
            _flags(err),
        )
    ).encode("ascii")


def _tty(fd: int) -> bool:
    try:
        return os.isatty(fd)
    except OSError:
        return False


def _connect(path: str) -> _socket.socket | int:
    """A connection to this user's server at `path`, or why there is none (START or NOT_TAKEN)."""
    folder = os.path.dirname(path)
    try:
        if os.stat(folder).st_uid != os.getuid():
            return NOT_TAKEN  # a MeMesh folder of another user: nothing in it is spoken to
        if os.lstat(path).st_uid != os.getuid():
            return NOT_TAKEN  # another user's socket: never connected to, never replaced
    except FileNotFoundError:
        return START
    except OSError:
        return NOT_TAKEN
    target, fd = frames.address(path)
    sock = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    try:
        sock.settimeout(wire.ACCEPT_TIMEOUT_S)
        sock.connect(target)
        peer = _peer_uid(sock)
    except OSError:
        sock.close()
        return START  # nothing listens: a stale socket, which the next server (holding the lock) replaces
    finally:
        if fd is not None:
            os.close(fd)
    if peer is not None and peer != os.getuid():
        sock.close()
        return NOT_TAKEN
    return sock


def ask(kind: bytes, argv: list[str], data: bytes, answer_s: float) -> tuple[int, bytes, bytes] | str | int:
    """Have the resident server run `argv` (kind CLI) or the hook event `argv[0]` over `data` (kind HOOK)."""
    if resident.switched_off(os.environ):
        return NOT_TAKEN
    try:
        cwd = os.getcwd()
    except OSError:
        return NOT_TAKEN
    folder, db = resident.served(os.environ)
    sock = _connect(resident.socket_path(folder, db))
    if isinstance(sock, int):
        return sock
    try:
        request = frames.framed(
            resident.stamp(),
            kind,
            os.fsencode(folder),
            os.fsencode(db),
            os.fsencode(cwd),
            b"".join(name + b"=" + value + b"\0" for name, value in os.environb.items()),
            b"\0".join(os.fsencode(word) for word in argv),
            data,
            _shape(),
        )
        try:
            sock.sendall(wire.MAGIC + request)
            first = _read(sock, 1, time.monotonic() + wire.ACCEPT_TIMEOUT_S)
        except TimeoutError:
            return "the MeMesh server did not accept the command in time"
        except OSError:
            return START  # not taken whole, or closed (an exiting server): nothing ran
        if first == wire.REFUSE:
            try:
                head = _read(sock, 4, time.monotonic() + 1.0)
                reason = _read(sock, int.from_bytes(head, "big"), time.monotonic() + 1.0) if len(head) == 4 else b""
            except (OSError, TimeoutError):
                reason = b""
            return REPLACE if reason[4:] == wire.UPGRADE else NOT_TAKEN
        if first != wire.ACCEPT:
            return START  # closed without a word: an exiting server, nothing ran
        deadline = time.monotonic() + answer_s
        try:
            head = _read(sock, 4, deadline)
            size = int.from_bytes(head, "big")
            body = _read(sock, size, deadline) if len(head) == 4 and size <= frames.MAX_FRAME << 4 else b""
            fields = frames.unpack(body) if body and len(body) == size else []
        except TimeoutError:
            return "the MeMesh server did not answer in time"
        except (OSError, ValueError):
            return "the MeMesh server failed while running the command"
        if len(fields) != 3 or len(fields[0]) != 1:
            return "the MeMesh server failed while running the command"
        return fields[0][0], fields[1], fields[2]
    finally:
        sock.close()


def start(*, replacing: bool = False) -> None:
    """Start the resident server of this environment's database, detached (its own session, stdio on /dev/null),
    unless it is turned off (MEMESH_DAEMON=0, config.json `daemon: false`) or a server already holds its lock (it
    runs, or is starting). `replacing`: the holder is an old install's server on its way out; the new one waits
    for the lock (server.CLAIM_WAIT_S)."""
    if resident.switched_off(os.environ):
        return
    folder, db = resident.served(os.environ)
    try:
        # The MeMesh folder holds the socket; on PostgreSQL nothing else may have made it yet (0700, as every
        # MeMesh writer makes it).
        os.makedirs(folder, 0o700, exist_ok=True)
        if os.stat(folder).st_uid != os.getuid():
            return
    except OSError:
        return
    if not resident.setting_allows(folder):
        return
    import fcntl

    try:
        fd = os.open(resident.lock_path(folder, db), os.O_RDWR | os.O_CREAT | os.O_CLOEXEC | os.O_NOFOLLOW, 0o600)
    except OSError:
        return
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        if not replacing:
            return  # held: a server runs or is starting (or exiting: the next cold call starts the new one)
    finally:
        os.close(fd)  # let go before the server takes it
    executable = sys.executable
    if not executable:
        return
    null = os.devnull
    try:
        os.posix_spawn(
            executable,
            # -P: the working folder is not put on sys.path (a folder holding a `memesh` of its own, such as a
            # checkout of MeMesh, would otherwise be what the server imports)
            [executable, "-P", "-m", "memesh.transports.resident"],
            os.environ,
            file_actions=[
                (os.POSIX_SPAWN_OPEN, 0, null, os.O_RDONLY, 0),
                (os.POSIX_SPAWN_OPEN, 1, null, os.O_WRONLY, 0),
                (os.POSIX_SPAWN_OPEN, 2, null, os.O_WRONLY, 0),
            ],
            setsid=True,
        )
    except (OSError, NotImplementedError):  # a system without setsid for posix_spawn starts none
        pass


def _write(stream: IO[str], data: bytes) -> None:
    if data:
        try:
            stream.flush()
            stream.buffer.write(data)  # type: ignore[attr-defined]
            stream.flush()
        except (OSError, ValueError, AttributeError):
            pass


def cli(argv: list[str]) -> int:
    """`memesh <argv>` answered by the resident server when it can (the process then ends here, with the command's
    exit status); returns otherwise: START or REPLACE when a server is to be started once the command has run
    here, else NOT_TAKEN."""
    answered = ask(wire.CLI, argv, b"", wire.CLI_ANSWER_TIMEOUT_S)
    if isinstance(answered, tuple):
        status, out, err = answered
        _write(sys.stdout, out)
        _write(sys.stderr, err)
        from memesh import quick_exit

        quick_exit.leave(status)
    if isinstance(answered, str):
        if argv[0] in wire.REPEATABLE:
            return NOT_TAKEN  # nothing it does must not happen twice: answered here
        _write(sys.stderr, f"Error: {answered}; the command may or may not have run (it is not run twice).\n".encode())
        from memesh import quick_exit

        quick_exit.leave(1)
    return answered
