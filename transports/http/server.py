"""Run the app under granian on a socket MeMesh bound itself.

On Linux granian binds with SO_REUSEPORT, so a second server on a busy port would quietly share it instead of
failing. MeMesh binds the listening socket itself (plain SO_REUSEADDR), so "port in use" is an error at bind time
and the socket accepts connections before the worker starts; granian's workers inherit that socket, the path
granian itself takes on platforms without SO_REUSEPORT.
"""

from __future__ import annotations

import os
import signal
import socket
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from granian._granian import SocketHolder
from granian.constants import Interfaces
from granian.log import LogLevels
from granian.server.mp import MPServer

BACKLOG = 1024
PARENT_CHECK_SECONDS = 0.5
STOP_GRACE_SECONDS = 5.0


# granian's stub declares no constructor arguments; the extension takes (fd, is_uds, backlog).
_SOCKET_HOLDER: Any = SocketHolder


class _BoundServer(MPServer):
    """granian's process server, serving an already bound and listening socket."""

    def __init__(self, listener: socket.socket, **options: Any) -> None:
        super().__init__(**options)
        self._listener = listener

    def _init_shared_socket(self) -> None:
        self._ssp = None
        self._sso = self._listener
        self._sso.set_inheritable(True)
        # The same three fields granian sets where it shares one socket with its workers (no SO_REUSEPORT).
        self._sfd = self._sso.fileno()  # type: ignore[assignment]
        self._shd = _SOCKET_HOLDER(self._sfd, False, BACKLOG)


def watch_parent(parent: int, *, every: float = PARENT_CHECK_SECONDS) -> threading.Thread:
    """A daemon thread that stops this worker once `parent` (granian's main process) is gone: `kill -9` of
    `memesh serve` would otherwise leave the worker serving the port with no one to stop it. SIGTERM first (the
    worker's own graceful stop), then a hard exit if that has not ended it after a few seconds."""

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(every)
        os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(STOP_GRACE_SECONDS)
        os._exit(1)

    thread = threading.Thread(target=watch, name="memesh-parent-watch", daemon=True)
    thread.start()
    return thread


def _watched(app_factory: Callable[[], Any], parent: int) -> Callable[[], Any]:
    """`app_factory`, which granian calls in the worker, starting the parent watch there first."""

    def load() -> Any:
        watch_parent(parent)
        return app_factory()

    return load


def run(listener: socket.socket, app_factory: Callable[[], Any], tls: tuple[Path, Path] | None = None) -> int:
    """Serve until SIGINT/SIGTERM, HTTPS with `tls` (certificate, key) when given; the app is built in the worker
    process. Returns the exit code."""
    host, port = listener.getsockname()[:2]
    server = _BoundServer(
        listener,
        target="memesh.transports.http.app:create_app",  # informational only: the loader below builds the app
        address=host,
        port=port,
        interface=Interfaces.ASGI,
        workers=1,
        backlog=BACKLOG,
        log_level=LogLevels.warning,
        ssl_cert=tls[0] if tls else None,
        ssl_key=tls[1] if tls else None,
    )
    try:
        # Measured: granian's worker does not notice its main process dying (it kept serving the port, reparented
        # to init); one worker process watching its parent costs a getppid() every half second. (Embedding the
        # server in one process would avoid the question, but granian marks that mode experimental.)
        server.serve(target_loader=_watched(app_factory, os.getpid()), wrap_loader=False)
    except SystemExit as stop:  # granian exits 1 when a worker died unexpectedly
        return stop.code if isinstance(stop.code, int) else 1
    return 0
