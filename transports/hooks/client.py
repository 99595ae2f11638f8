"""The thin client of `memesh-hook`: hand the hook to a warm memesh-mcp of the same database, when one answers.

Imports `_socket` (the C module: `socket` would pull selectors, enum and functools, ~10 ms) and `wire` (os only).
The answer is one of three:
- None: no server took the request (no socket, refused connection, a server of another user, database or version,
  or one that closed without accepting). Nothing ran; the caller runs the hook in its own process.
- (status, stdout bytes): the server ran the hook; the caller writes the bytes and exits with the status.
- a reason (str): the server accepted the request and then failed or went silent. The hook may have run, so it
  must not run again here (a write hook would write twice): the caller records an error outcome and exits 0.
"""

from __future__ import annotations  # free: memesh/__init__.py imported it already

# ruff: noqa: PTH109, PTH116  (os, not pathlib: pathlib costs the client several ms of imports)
import _socket
import os
import sys
import time

from memesh import __version__
from memesh.transports.hooks import wire


def _peer_uid(sock: _socket.socket) -> int | None:
    if not hasattr(_socket, "SO_PEERCRED"):
        return None
    creds = sock.getsockopt(_socket.SOL_SOCKET, _socket.SO_PEERCRED, 12)  # struct ucred: pid, uid, gid
    return int.from_bytes(creds[4:8], sys.byteorder)


def _read(sock: _socket.socket, size: int, deadline: float) -> bytes:
    """Exactly `size` bytes before `deadline`; fewer only at end of stream. TimeoutError past the deadline."""
    chunks, got = [], 0
    while got < size:
        left = deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError
        sock.settimeout(left)
        chunk = sock.recv(min(size - got, 1 << 20))
        if not chunk:
            break
        chunks.append(chunk)
        got += len(chunk)
    return b"".join(chunks)


def _connect(path: str) -> _socket.socket | None:
    """A connection to the server at `path` that belongs to this user, or None."""
    try:
        if os.stat(path).st_uid != os.getuid():
            return None
        sock = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    except OSError:
        return None
    target, fd = wire.address(path)
    try:
        sock.settimeout(wire.ACCEPT_TIMEOUT_S)
        sock.connect(target)
        peer = _peer_uid(sock)
    except OSError:
        sock.close()
        return None
    finally:
        if fd is not None:
            os.close(fd)
    if peer is not None and peer != os.getuid():  # only this user's server hears the hook (and its environment)
        sock.close()
        return None
    return sock


def delegate(event: str, data: bytes) -> tuple[int, bytes] | str | None:
    """Run the hook in a warm server: (status, stdout), a failure reason after it accepted, or None (not taken)."""
    if not wire.enabled(os.environ):
        return None
    try:
        cwd = os.getcwd()
    except OSError:
        return None
    folder, db = wire.served(os.environ)
    sock = _connect(wire.socket_path(folder, db))
    if sock is None:
        return None
    try:
        request = wire.framed(
            __version__.encode(),
            event.encode(),
            os.fsencode(cwd),
            os.fsencode(folder),
            os.fsencode(db),
            wire.forwarded(os.environb),
            data,
        )
        try:
            sock.sendall(wire.MAGIC + request)
            first = _read(sock, 1, time.monotonic() + wire.ACCEPT_TIMEOUT_S)
        except TimeoutError:
            # The request was sent and neither accepted nor refused: the server may be about to run it.
            return "the MeMesh server did not accept the hook in time"
        except OSError:
            return None  # the request was not taken whole (or no byte came back): nothing ran
        if first != wire.ACCEPT:
            return None  # refused (other version, database or user, or busy), or closed: nothing ran
        deadline = time.monotonic() + wire.ANSWER_TIMEOUT_S.get(event, wire.DEFAULT_ANSWER_TIMEOUT_S)
        try:
            head = _read(sock, 4, deadline)
            size = int.from_bytes(head, "big")
            body = _read(sock, size, deadline) if len(head) == 4 and size <= wire.MAX_FRAME else b""
            fields = wire.unpack(body) if len(body) == size else []
        except TimeoutError:
            return "the MeMesh server did not answer in time"
        except (OSError, ValueError):
            return "the MeMesh server failed while running the hook"
        if len(fields) != 2 or len(fields[0]) != 1:
            return "the MeMesh server failed while running the hook"
        return fields[0][0], fields[1]
    finally:
        sock.close()
