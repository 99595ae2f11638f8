"""MCP over streamable HTTP at `/mcp`, inside `memesh serve`: the stdio server's own `build_server` and `Backend`,
driven by the mcp SDK's session manager in the HTTP API's ASGI app and granian process.

The HTTP app's edge has already checked the request (origin boundary, bearer on a remote listener, the 1 MB body)
before it gets here; this module starts the SDK in the background once the app serves (so `memesh serve` listens,
and /v1 answers, without waiting on the ~1 s import of the SDK) and hands each request to it. The same 12 tools,
schema files, gate, door, structuredContent, outputSchema, annotations and instructions as stdio: the same server.
Provenance is the client's declared name, as on stdio. Nothing here runs hooks or reads the caller's session from
this process's environment: the clients are not this process's session (`build_server`'s `hooks`,
`caller_session`).

Mode (docs/adr/0007-mcp-over-http.md): stateful sessions, answers as SSE streams, as the SDK defines them — a
session id per initialize, the GET stream, DELETE to end it; a 2026-07-28 client's requests are per-request
envelopes whichever mode (the SDK routes them by header). A message poll that waits sleeps on the event loop
(`memesh.app.waiting`, as on stdio), holding no worker thread.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Awaitable, Callable, MutableMapping
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any

import anyio
import anyio.abc
import anyio.to_thread

from memesh.app.resources import Resources

if TYPE_CHECKING:
    from mcp.server.streamable_http_manager import StreamableHTTPSessionManager

log = logging.getLogger("memesh.mcp")

Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Any]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]

MCP_PATH = "/mcp"
# Stateful (sessions) unless set: benchmarks/mcp_http.py measures both (the ADR's figures).
STATELESS = False
# A session no request has touched for this long is closed; its id then answers 404 and the client initializes
# again (the SDK's default: 30 minutes).
SESSION_IDLE_SECONDS = 30 * 60
# Open sessions at most; past it a new one is refused with 503 until one ends or idles out. Measured at about
# 0.35 MB each (benchmarks/mcp_http.py), so the SDK's default of 10,000 would let a client hold 3.5 GB.
MAX_SESSIONS = 1000


class NotRunning(RuntimeError):
    """A request reached /mcp on an app whose lifespan has not started (or has ended)."""


class McpOverHttp:
    """The `/mcp` endpoint of one listener: the MCP server on the listener's own resources, started on first use
    inside the app's lifespan (`running`) and stopped with it."""

    def __init__(self, resources: Resources, *, body_limit: int) -> None:
        self._resources = resources
        self._body_limit = body_limit
        self._group: anyio.abc.TaskGroup | None = None
        self._manager: StreamableHTTPSessionManager | None = None
        self._starting = anyio.Lock()

    @asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        """While the app serves: the task the SDK's session manager runs in, once a request has started it."""
        async with anyio.create_task_group() as group:
            self._group = group
            group.start_soon(self._warm)
            try:
                yield
            finally:
                self._group = None
                self._manager = None
                group.cancel_scope.cancel()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        manager = self._manager or await self._start()
        await manager.handle_request(scope, receive, send)

    async def _warm(self) -> None:
        """Start the SDK as soon as the app serves, off the event loop: a connector's first request (whose client
        may give up after a few seconds) then finds it loaded, while /v1 answers from the first moment."""
        try:
            await self._start()
        except NotRunning:  # stopped before it started: nothing to report
            return
        except Exception:  # the first /mcp request tries again, and its failure is logged there
            log.exception("MCP over HTTP did not start")

    async def _start(self) -> StreamableHTTPSessionManager:
        async with self._starting:
            if self._manager is not None:
                return self._manager
            if self._group is None:
                raise NotRunning("MCP over HTTP runs only inside the app's lifespan")
            # The SDK's import takes most of a second: off the event loop, so /v1 keeps answering meanwhile.
            await anyio.to_thread.run_sync(_load_sdk)
            if self._group is None:  # the app stopped while the SDK loaded (a shutdown right after start)
                raise NotRunning("MCP over HTTP runs only inside the app's lifespan")
            manager = _manager(self._resources, self._body_limit)
            await self._group.start(_run, manager)
            self._manager = manager
            return manager


def _load_sdk() -> None:
    import mcp.server.streamable_http_manager  # noqa: F401 (imported here to be imported off the event loop)

    import memesh.transports.mcp.server  # noqa: F401


def _manager(resources: Resources, body_limit: int) -> StreamableHTTPSessionManager:
    from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
    from mcp.server.transport_security import TransportSecuritySettings

    from memesh.transports.mcp.backend import Backend
    from memesh.transports.mcp.replay import ReplayBuffer
    from memesh.transports.mcp.server import build_server

    # No update notice on the answers: it would tell a remote agent to upgrade the server's machine.
    server = build_server(Backend(resources=resources), hooks=False, caller_session=_no_session)
    return StreamableHTTPSessionManager(
        server,
        stateless=STATELESS,
        # The HTTP app's edge is the boundary (Host, Sec-Fetch-Site and Origin, as for /v1): the SDK's own Host
        # allow-list would only repeat it, less exactly.
        security_settings=TransportSecuritySettings(enable_dns_rebinding_protection=False),
        session_idle_timeout=SESSION_IDLE_SECONDS,
        max_sessions=MAX_SESSIONS,
        max_request_body_size=body_limit,
        event_store=ReplayBuffer(),  # a client whose stream broke resumes it with Last-Event-ID
    )


def _no_session() -> str | None:
    return None


async def _run(
    manager: StreamableHTTPSessionManager, *, task_status: anyio.abc.TaskStatus[None] = anyio.TASK_STATUS_IGNORED
) -> None:
    async with manager.run():
        task_status.started()
        await anyio.sleep_forever()
