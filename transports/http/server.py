"""Run the app under granian on a socket MeMesh bound itself.

On Linux granian binds with SO_REUSEPORT, so a second server on a busy port would quietly share it instead of
failing. MeMesh binds the listening socket itself (plain SO_REUSEADDR), so "port in use" is an error at bind time
and the socket accepts connections before the worker starts; granian's workers inherit that socket, the path
granian itself takes on platforms without SO_REUSEPORT.
"""

from __future__ import annotations

import socket
from collections.abc import Callable
from typing import Any

from granian._granian import SocketHolder
from granian.constants import Interfaces
from granian.log import LogLevels
from granian.server.mp import MPServer

BACKLOG = 1024


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


def run(listener: socket.socket, app_factory: Callable[[], Any]) -> int:
    """Serve until SIGINT/SIGTERM; the app is built in the worker process. Returns the exit code."""
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
    )
    try:
        server.serve(target_loader=app_factory, wrap_loader=False)
    except SystemExit as stop:  # granian exits 1 when a worker died unexpectedly
        return stop.code if isinstance(stop.code, int) else 1
    return 0
