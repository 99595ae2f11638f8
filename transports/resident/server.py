"""The resident server: one process per user and database, started detached by a cold `memesh` or `memesh-hook`
(client.py), that runs their warm commands and hook events in-process and answers with the bytes they would have
printed (docs/adr/0008-whole-process-speed.md, "The resident server").

Guarantees:
- One per user and database. A server holds `resident-<hash>.lock` (flock) for its whole life, and only the holder
  touches the socket: it removes a stale one (a killed server's) before it binds. A starter that cannot take the
  lock waits briefly (an old server may be exiting) and gives up once a server answers; so eight cold calls at once
  start one server.
- Owner only, as the hook socket (transports/hooks/server.py): the folder is the MeMesh folder (0700), the socket is
  born 0600, every peer must be this user (SO_PEERCRED), the client checks the folder's and the socket's owner and
  the server's peer credentials, and a socket owned by another user is never connected to nor removed.
- The same answer as the command run in its own process: the server runs the same code (`cli.app.main`, the hook
  runner) under the client's environment, working directory, umask and stdio encodings, one request at a time, and
  returns the exit status and the stdout and stderr bytes. Only the commands of `wire.WARM` (and the hook events) are
  run; a request it cannot run exactly is refused before anything runs and the client answers it itself.
- It exits after `MEMESH_DAEMON_IDLE_S` without a request (10 minutes; 2 minutes while no request has come since
  it started, so a lone command leaves no process behind for long), when its MeMesh folder or database folder
  disappears, when its socket is removed or replaced, when a client of another install asks (an upgrade: the client
  starts the new one), when `daemon` is turned off, and on SIGTERM.
"""

from __future__ import annotations

# ruff: noqa: PTH101, PTH108, PTH109, PTH112, PTH116, PTH120  (the wire's paths are str, compared and bound as str)
import contextlib
import fcntl
import io
import os
import signal
import socket
import sys
import threading
import time
from collections.abc import Iterator

from memesh import resident
from memesh.transports.hooks import wire as frames
from memesh.transports.hooks.server import _answers, _peer_uid, _read  # the hook socket's own checks and reads
from memesh.transports.resident import wire

CLAIM_WAIT_S = 5.0  # how long a starter waits for the lock an exiting server still holds
POLL_S = 0.5  # how often the accept loop looks at the clock, the folder and the socket
READ_TIMEOUT_S = 5.0  # for the client's request, once connected
MAX_WORKERS = 16  # connections read at once (requests run one at a time); more are refused and answered cold


class Captured(io.TextIOWrapper):
    """A text stream over bytes held in memory, shaped as the client's own stream was (encoding, errors, buffering,
    whether it is a terminal)."""

    def __init__(self, encoding: str, errors: str, *, tty: bool, line: bool, through: bool, data: bytes = b"") -> None:
        self.held = io.BytesIO(data)
        super().__init__(self.held, encoding=encoding, errors=errors, line_buffering=line, write_through=through)
        self._tty = tty

    def isatty(self) -> bool:
        return self._tty

    def written(self) -> bytes:
        with contextlib.suppress(ValueError, OSError):
            self.flush()
        return self.held.getvalue()


class Request:
    """One client's request, read from its fields (wire.py)."""

    def __init__(self, fields: list[bytes]) -> None:
        self.stamp, self.kind, folder, db, cwd, env, argv, self.stdin, shape = fields[: wire.FIELDS]
        self.folder, self.db, self.cwd = os.fsdecode(folder), os.fsdecode(db), os.fsdecode(cwd)
        self.env = frames.environment(env)
        self.argv = [os.fsdecode(word) for word in argv.split(b"\0")] if argv else []
        parts = shape.split(b"\0")
        if len(parts) != 8:
            raise ValueError("io shape")
        out_enc, out_err, err_enc, err_err, umask, ttys, out_flags, err_flags = (p.decode("ascii") for p in parts)
        if len(ttys) != 3 or len(out_flags) != 2 or len(err_flags) != 2:
            raise ValueError("io shape")
        self.umask = int(umask)
        self.stdout = (out_enc, out_err, ttys[1] == "1", out_flags[0] == "1", out_flags[1] == "1")
        self.stderr = (err_enc, err_err, ttys[2] == "1", err_flags[0] == "1", err_flags[1] == "1")
        self.stdin_tty = ttys[0] == "1"


def _stream(shape: tuple[str, str, bool, bool, bool]) -> Captured:
    encoding, errors, tty, line, through = shape
    return Captured(encoding, errors, tty=tty, line=line, through=through)


@contextlib.contextmanager
def as_the_client(request: Request) -> Iterator[tuple[Captured, Captured]]:
    """The process as the client's own would be for the duration (environment, folder, umask, stdio), its stdout
    and stderr captured; everything restored afterwards. One request at a time (the caller holds the run lock)."""
    saved_env = dict(os.environ)
    saved_cwd = os.getcwd()
    saved_streams = sys.stdin, sys.stdout, sys.stderr, sys.argv
    out, err = _stream(request.stdout), _stream(request.stderr)
    stdin = Captured("utf-8", "strict", tty=request.stdin_tty, line=False, through=False, data=request.stdin)
    os.environ.clear()
    os.environ.update(request.env)
    old_umask = os.umask(request.umask)
    try:
        os.chdir(request.cwd)
        sys.stdin, sys.stdout, sys.stderr = stdin, out, err
        sys.argv = ["memesh", *request.argv]
        yield out, err
    finally:
        sys.stdin, sys.stdout, sys.stderr, sys.argv = saved_streams
        os.umask(old_umask)
        os.environ.clear()
        os.environ.update(saved_env)
        os.chdir(saved_cwd)


def run_cli(request: Request) -> tuple[int, bytes, bytes]:
    """`memesh <argv>` as its own process would run it: exit status, stdout and stderr bytes."""
    from memesh.app import resident as app_resident
    from memesh.transports.cli import app

    app_resident.fresh_request()
    with as_the_client(request) as (out, err):
        try:
            code = app.main(request.argv)
        except SystemExit as exit_:
            code = exit_.code if isinstance(exit_.code, int) else 1
        return code, out.written(), err.written()


def run_hook(request: Request) -> tuple[int, bytes, bytes]:
    """`memesh-hook <event>` over its stdin, as its own process would run it."""
    from memesh.app import resident as app_resident
    from memesh.transports.hooks import runner

    app_resident.fresh_request()
    event = request.argv[0] if request.argv else ""
    with as_the_client(request) as (out, err):
        status = runner.run(event, request.stdin, out, runner.HookCall.here())
        return status, out.written(), err.written()


def runnable(request: Request) -> bool:
    """Whether this server can answer `request` exactly: a warm command line the CLI's front reads whole (anything
    else is help or a usage error, answered by Cyclopts in the client's own process), or a hook event."""
    if request.kind == wire.HOOK:
        return len(request.argv) == 1
    if request.kind != wire.CLI or not wire.warm_line(request.argv):
        return False
    from memesh.transports.cli import front

    try:
        return front.read(request.argv) is not None
    except Exception:  # a line the front cannot read runs in the client, with its own error
        return False


def _refuse(conn: socket.socket, reason: bytes) -> None:
    with contextlib.suppress(OSError):
        conn.sendall(wire.REFUSE + frames.framed(reason))


class Resident:
    """The server of one database: `claim` the lock, `prepare`, `bind`, `serve` until it should exit, `close`."""

    def __init__(self, folder: str, db: str, idle_s: float) -> None:
        self.folder, self.db = folder, db
        self.path = resident.socket_path(folder, db)
        self.lock_path = resident.lock_path(folder, db)
        self.idle_s = idle_s
        self.stamp = resident.stamp()
        self._lock_fd: int | None = None
        self._listener: socket.socket | None = None
        self._identity: tuple[int, int] | None = None
        self._stop = threading.Event()
        self._run_lock = threading.Lock()
        self._slots = threading.BoundedSemaphore(MAX_WORKERS)
        self._busy = 0
        self._busy_lock = threading.Lock()
        self._last = time.monotonic()
        self._answered = False  # no request yet: the server waits resident.FIRST_IDLE_S at most

    def claim(self) -> bool:
        """Hold the database's lock (writing this process's id into it); False when another server holds it."""
        if not os.path.isdir(self.folder) or os.stat(self.folder).st_uid != os.getuid():
            return False
        fd = os.open(self.lock_path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC | os.O_NOFOLLOW, 0o600)
        deadline = time.monotonic() + CLAIM_WAIT_S
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except OSError:
                if time.monotonic() > deadline or _answers(self.path):
                    os.close(fd)
                    return False
                time.sleep(0.05)
        os.ftruncate(fd, 0)
        os.pwrite(fd, str(os.getpid()).encode(), 0)
        self._lock_fd = fd
        return True

    def bind(self) -> bool:
        """Listen on the socket, replacing a stale one (only the lock holder does); False when the path holds
        another user's file, which is never removed."""
        with contextlib.suppress(FileNotFoundError):
            found = os.lstat(self.path)
            if found.st_uid != os.getuid():
                return False
            os.unlink(self.path)  # left by a server that was killed: this process holds the lock
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        target, fd = frames.address(self.path)
        old_umask = os.umask(0o177)  # born 0600: no window where another user could connect
        try:
            listener.bind(target)
        except OSError:
            listener.close()
            return False
        finally:
            os.umask(old_umask)
            if fd is not None:
                os.close(fd)
        os.chmod(self.path, 0o600)
        listener.listen(64)
        listener.settimeout(POLL_S)
        found = os.stat(self.path)
        self._listener, self._identity = listener, (found.st_dev, found.st_ino)
        self._last = time.monotonic()
        return True

    def stop(self) -> None:
        self._stop.set()

    def _should_exit(self) -> bool:
        with self._busy_lock:
            idle = self._busy == 0 and time.monotonic() - self._last > resident.idle_limit(self.idle_s, self._answered)
        if idle or self._stop.is_set():
            return True
        if not os.path.isdir(self.folder):
            return True
        if not self.db.startswith(("postgresql://", "postgres://")) and not os.path.isdir(os.path.dirname(self.db)):
            return True
        try:
            found = os.stat(self.path)
        except OSError:
            return True
        return (found.st_dev, found.st_ino) != self._identity

    def serve(self) -> None:
        listener = self._listener
        assert listener is not None
        while not self._should_exit():
            try:
                conn, _ = listener.accept()
            except TimeoutError:
                continue
            except OSError:
                if self._stop.is_set():
                    break
                continue
            if not self._slots.acquire(blocking=False):
                with conn:
                    _refuse(conn, b"busy")
                continue
            threading.Thread(target=self._serve, args=(conn,), name="memesh-resident", daemon=True).start()
        # Stop answering before the last requests finish: a client arriving now is answered cold (nothing ran).
        self._stop.set()
        self._close_listener()
        with self._run_lock:  # a request still running finishes and sends its answer
            pass

    def _serve(self, conn: socket.socket) -> None:
        with self._busy_lock:
            self._busy += 1
        try:
            with conn:
                conn.settimeout(READ_TIMEOUT_S)
                self._answer(conn)
        except OSError:
            pass  # the client went away; it answers for itself
        finally:
            with self._busy_lock:
                self._busy -= 1
                self._last = time.monotonic()
                self._answered = True
            self._slots.release()

    def _answer(self, conn: socket.socket) -> None:
        peer = _peer_uid(conn)
        if peer is not None and peer != os.getuid():
            _refuse(conn, b"not this user's process")
            return
        fields = self._request(conn)
        try:
            request = Request(fields) if fields is not None else None
        except (ValueError, UnicodeDecodeError):
            request = None
        if request is None:
            _refuse(conn, b"not a request")
            return
        if request.stamp != self.stamp:
            # The client starts its own install's server: this one stops answering before it says so, so the new
            # one does not take it for a live server and give up (it waits for the lock instead).
            self.stop()
            self._close_listener()
            _refuse(conn, wire.UPGRADE)
            return
        if request.folder != self.folder or request.db != self.db:
            _refuse(conn, b"another database")
            return
        if resident.switched_off(request.env) or not resident.setting_allows(self.folder):
            self.stop()
            self._close_listener()
            _refuse(conn, b"turned off")
            return
        if not os.path.isdir(request.cwd) or not runnable(request):
            _refuse(conn, b"not a warm request")
            return
        if not self._run_lock.acquire(timeout=wire.BUSY_WAIT_S):
            _refuse(conn, b"busy")
            return
        try:
            if self._stop.is_set():
                _refuse(conn, b"exiting")
                return
            conn.sendall(wire.ACCEPT)  # from here on the client never runs this request itself
            run = run_hook if request.kind == wire.HOOK else run_cli
            status, out, err = run(request)
        finally:
            self._run_lock.release()
        conn.settimeout(None)
        conn.sendall(frames.framed(bytes([status & 0xFF]), out, err))

    @staticmethod
    def _request(conn: socket.socket) -> list[bytes] | None:
        head = _read(conn, len(wire.MAGIC) + 4)
        if len(head) != len(wire.MAGIC) + 4 or not head.startswith(wire.MAGIC):
            return None
        size = int.from_bytes(head[len(wire.MAGIC) :], "big")
        if size > frames.MAX_FRAME + (1 << 20):
            return None
        body = _read(conn, size)
        try:
            fields = frames.unpack(body) if len(body) == size else []
        except ValueError:
            return None
        return fields if len(fields) == wire.FIELDS else None

    def _close_listener(self) -> None:
        with self._busy_lock:
            listener, self._listener = self._listener, None
        if listener is None:
            return
        listener.close()
        try:
            found = os.stat(self.path)
        except OSError:
            return
        if (found.st_dev, found.st_ino) == self._identity:
            with contextlib.suppress(OSError):
                os.unlink(self.path)

    def close(self) -> None:
        """Remove the socket (if still this server's), then let go of the lock."""
        self._close_listener()
        if self._lock_fd is not None:
            with contextlib.suppress(OSError):
                os.ftruncate(self._lock_fd, 0)
            os.close(self._lock_fd)  # the lock goes with it
            self._lock_fd = None


def main() -> None:
    """Serve this environment's database until the server should exit (module docstring)."""
    folder, db = resident.served(os.environ)
    os.chdir("/")  # a request runs in its client's folder; between requests the server keeps none busy
    server = Resident(folder, db, resident.idle_seconds(os.environ))
    signal.signal(signal.SIGTERM, lambda *_: server.stop())
    signal.signal(signal.SIGHUP, signal.SIG_IGN)
    signal.signal(signal.SIGINT, lambda *_: server.stop())
    if resident.switched_off(os.environ) or not server.claim():
        return
    try:
        from memesh.app import resident as app_resident

        try:
            app_resident.prepare()
        except Exception:  # a server that cannot load MeMesh serves nothing: every call runs cold
            return
        if server.bind():
            server.serve()
    finally:
        server.close()
        with contextlib.suppress(Exception):
            from memesh.app import resident as app_resident

            app_resident.close()
