"""The warm hook path's server: memesh-mcp runs memesh-hook's events for it, on an owner-only Unix socket.

Claude Code keeps memesh-mcp running for the whole session, with MeMesh imported; a hook process that hands its
event to it skips every import a cold hook pays for (docs/adr/0002-hook-startup.md). The server runs the same
`runner.run` (the same door, gate and operations) on a worker thread per request, each with its own resources (its
own SQLite connections, the client's environment and folder), so it never shares a connection with the MCP tool
calls.

Guarantees:
- Owner only: the socket lives in the MeMesh folder, is created 0600 (umask 0177 while binding), and every
  connection's peer credentials (SO_PEERCRED) must name this user; the client checks the server's the same way.
- One database: the socket is named by a hash of the resolved database path (of the PostgreSQL URL when
  MEMESH_DATABASE_URL names one: `wire.served`), and a request naming another MeMesh folder or database, or
  coming from another version of the package, is refused before anything runs (the client then runs the hook
  itself).
- One server per database: the first memesh-mcp binds; the others stand by and look again every 15 s, so the
  warm path outlives the session that started it. A socket left by a killed server (nothing answers on it) is
  replaced; binding happens under a lock file, so two servers starting at once do not both replace it.
- A hook runs once: the server answers ACCEPT before it runs anything, and the client never runs a hook itself
  after an ACCEPT (`client.py`).
"""

from __future__ import annotations

import contextlib
import fcntl
import importlib
import io
import logging
import os
import socket
import struct
import threading
from pathlib import Path

import memesh
from memesh import paths
from memesh.transports.hooks import runner, wire

log = logging.getLogger("memesh.hooks")

MAX_WORKERS = 8  # hooks served at once; one more is refused and runs in its own process
STANDBY_RETRY_S = 15.0  # a server that found another one bound looks again this often
READ_TIMEOUT_S = 5.0  # for the client's request, once connected
ACCEPT_POLL_S = 1.0  # how often the accept loop looks whether to stop, or whether its socket was taken away


def warm() -> None:
    """Import the door, the hook operations and what they use on first use, and read the hook schemas, so the first
    served hook pays for none of it."""
    importlib.import_module("memesh.app.dispatch")
    from memesh.app.operations import hooks

    hooks.preload()


def _peer_uid(sock: socket.socket) -> int | None:
    if not hasattr(socket, "SO_PEERCRED"):
        return None
    creds = sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
    return int(struct.unpack("3i", creds)[1])


def _read(conn: socket.socket, size: int) -> bytes:
    chunks, got = [], 0
    while got < size:
        chunk = conn.recv(min(size - got, 1 << 20))
        if not chunk:
            break
        chunks.append(chunk)
        got += len(chunk)
    return b"".join(chunks)


def _answers(path: str) -> bool:
    """Whether a server is listening at `path` (a connection is accepted, or the backlog is full).

    No file, no server: checked first, because a path too long for a socket address in a folder that does not exist
    yet (on PostgreSQL nothing else creates the MeMesh folder before the server binds) cannot take the /proc/self/fd
    route, and `connect` would fail with "path too long" rather than "not found"."""
    if not os.path.lexists(path):
        return False
    target, fd = wire.address(path)
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as probe:
        probe.settimeout(1.0)
        try:
            probe.connect(target)
        except (FileNotFoundError, ConnectionRefusedError):
            return False
        except OSError:
            return True
        finally:
            if fd is not None:
                os.close(fd)
    return True


class HookServer:
    """Serves hook requests for one database until `close`; `start` runs it on a daemon thread."""

    def __init__(self, folder: str, db: str) -> None:
        self.folder = folder
        self.db = db
        self.path = wire.socket_path(folder, db)
        self._file = Path(self.path)
        self._listener: socket.socket | None = None
        self._identity: tuple[int, int] | None = None  # (device, inode) of the socket file this server bound
        self._stop = threading.Event()
        self._slots = threading.BoundedSemaphore(MAX_WORKERS)
        self._lock = threading.Lock()
        self._warned = False

    @classmethod
    def for_environment(cls) -> HookServer | None:
        """The server for this process's database, or None when MEMESH_HOOK_SERVER turns the warm path off."""
        if not wire.enabled(os.environ):
            return None
        return cls(*wire.served(os.environ))

    @property
    def bound(self) -> bool:
        return self._listener is not None

    def start(self) -> threading.Thread:
        thread = threading.Thread(target=self._run, name="memesh-hook-server", daemon=True)
        thread.start()
        return thread

    def bind(self) -> bool:
        """Listen on the socket, unless another server answers there; a stale socket file is replaced."""
        paths.ensure_private_dir(Path(self.folder))
        lock = os.open(self.path + ".lock", os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(lock, fcntl.LOCK_EX)
            if os.path.lexists(self.path):
                if _answers(self.path):
                    return False
                self._file.unlink()  # left by a server that was killed
            listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            target, fd = wire.address(self.path)
            old_umask = os.umask(0o177)  # the socket is born 0600: no window where another user could connect
            try:
                listener.bind(target)
            except OSError:
                listener.close()
                raise
            finally:
                os.umask(old_umask)
                if fd is not None:
                    os.close(fd)
            self._file.chmod(0o600)
            listener.listen(32)
            listener.settimeout(ACCEPT_POLL_S)
            found = self._file.stat()
            with self._lock:
                self._listener, self._identity = listener, (found.st_dev, found.st_ino)
            return True
        finally:
            os.close(lock)

    def close(self) -> None:
        """Stop serving and remove the socket file, if it is still the one this server bound."""
        self._stop.set()
        with self._lock:
            listener, self._listener = self._listener, None
            if listener is None:
                return
            listener.close()
            if self._still_ours():
                with contextlib.suppress(OSError):
                    self._file.unlink()

    def _still_ours(self) -> bool:
        try:
            found = self._file.stat()
        except OSError:
            return False
        return (found.st_dev, found.st_ino) == self._identity

    def _run(self) -> None:
        try:
            warm()
        except Exception:  # a server that cannot import the hook operations serves none: every hook runs cold
            log.exception("the hook server could not load the hooks; hooks run in their own processes")
            return
        while not self._stop.is_set():
            if self._listener is None:
                try:
                    bound = self.bind()
                except OSError as exc:
                    if not self._warned:  # once: a socket path too long for the system stays too long
                        log.warning("not serving hooks on %s: %s", self.path, exc.strerror or exc)
                        self._warned = True
                    bound = False
                if not bound:
                    self._stop.wait(STANDBY_RETRY_S)
                    continue
            self._accept()

    def _accept(self) -> None:
        listener = self._listener
        if listener is None:
            return
        try:
            conn, _ = listener.accept()
        except TimeoutError:
            if not self._stop.is_set() and not self._still_ours():  # removed or replaced: bind again, or stand by
                with self._lock:
                    if self._listener is listener:
                        self._listener = None
                        listener.close()
            return
        except OSError:
            return  # closed by `close`, or a connection that went away before it was accepted
        if not self._slots.acquire(blocking=False):
            with conn:
                _refuse(conn, "busy")
            return
        threading.Thread(target=self._serve, args=(conn,), name="memesh-hook", daemon=True).start()

    def _serve(self, conn: socket.socket) -> None:
        try:
            with conn:
                conn.settimeout(READ_TIMEOUT_S)
                self._answer(conn)
        except OSError:
            pass  # the client went away: it records its own outcome
        except Exception:
            log.exception("a served hook failed")  # the client sees the connection close and records an error
        finally:
            self._slots.release()

    def _answer(self, conn: socket.socket) -> None:
        peer = _peer_uid(conn)
        if peer is not None and peer != os.getuid():
            _refuse(conn, "not this user's process")
            return
        fields = self._request(conn)
        if fields is None:
            _refuse(conn, "not a hook request")
            return
        version, event, cwd, folder, db, env, data = fields
        if version != memesh.__version__.encode():
            _refuse(conn, "another version of MeMesh")
            return
        if os.fsdecode(folder) != self.folder or os.fsdecode(db) != self.db:
            _refuse(conn, "another database")
            return
        conn.sendall(wire.ACCEPT)  # from here on the client never runs this hook itself
        call = runner.HookCall(wire.environment(env), os.fsdecode(cwd))
        out = io.StringIO()
        status = runner.run(event.decode("utf-8", "replace"), data, out, call)
        try:
            printed = out.getvalue().encode("utf-8")
        except UnicodeEncodeError:  # what a hook's own stdout could not have printed either
            printed = b""
        conn.settimeout(None)
        conn.sendall(wire.framed(bytes([status & 0xFF]), printed))

    @staticmethod
    def _request(conn: socket.socket) -> list[bytes] | None:
        head = _read(conn, len(wire.MAGIC) + 4)
        if len(head) != len(wire.MAGIC) + 4 or not head.startswith(wire.MAGIC):
            return None
        size = int.from_bytes(head[len(wire.MAGIC) :], "big")
        if size > wire.MAX_FRAME:
            return None
        body = _read(conn, size)
        try:
            fields = wire.unpack(body) if len(body) == size else []
        except ValueError:
            return None
        return fields if len(fields) == 7 else None


def _refuse(conn: socket.socket, reason: str) -> None:
    with contextlib.suppress(OSError):
        conn.sendall(wire.REFUSE + wire.framed(reason.encode()))
