"""MCP over streamable HTTP at `/mcp`, inside `memesh serve`: the stdio server's own `build_server` and `Backend`,
driven by the mcp SDK's session manager in the HTTP API's ASGI app and granian process.

The HTTP app's edge has already checked the request (origin boundary, bearer on a remote listener, the 1 MB body)
before it gets here; this module loads the SDK when the first /mcp request comes (off the event loop, so /v1 keeps
answering during its ~1 s import; issue 36: loaded in the background at start, it held ~25 MB more in every
`memesh serve`, /mcp used or not) and hands each request to it. The same 12 tools,
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

import json
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, MutableMapping
from collections.abc import Set as AbstractSet
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any

import anyio
import anyio.abc
import anyio.to_thread

from memesh.app.resources import Resources
from memesh.errors import OUT_OF_DESCRIPTORS, out_of_descriptors

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
# Open sessions one client may hold (issue 35: one client opened all 1,000 in a minute and locked everyone else out
# for the idle half hour). A client is its bearer, else its address: every local client shares one, and an MCP
# client holds a single session. At the cap, or at MAX_SESSIONS, the session idle longest (no request in flight,
# no open stream) is closed for the new one; its client gets 404 and initializes again, as the protocol says.
SESSIONS_PER_CLIENT = 100
RETRY_AFTER_SECONDS = 30


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
        self._opening = anyio.Lock()
        self._owner: dict[str, str] = {}  # session id → the client that opened it
        self._used: dict[str, float] = {}  # session id → when a request last reached it
        self._pending: dict[str, int] = {}  # client → sessions admitted whose opening answer has not started yet

    @asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        """While the app serves: the task the SDK's session manager runs in, once a request has started it."""
        async with anyio.create_task_group() as group:
            self._group = group
            try:
                yield
            finally:
                self._group = None
                self._manager = None
                group.cancel_scope.cancel()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            manager = self._manager or await self._start()
        except OSError as exc:
            if not out_of_descriptors(exc):
                raise
            # The SDK could not be imported with every descriptor taken (issue 35): the next request tries again.
            await _unavailable(send, OUT_OF_DESCRIPTORS)
            return
        session = _header(scope, b"mcp-session-id")
        if session is not None or scope.get("method") != "POST" or STATELESS:
            if session in self._used:
                self._used[session] = anyio.current_time()
            await manager.handle_request(scope, receive, send)
            return
        client = _client(scope)
        async with self._opening:
            if not await self._room_for(manager, client):
                await _unavailable(send, "Too many open sessions for this client")
                return
            # Counted against the client until its session id is known: openings sent at once cannot pass the cap.
            self._pending[client] = self._pending.get(client, 0) + 1
        counted = True

        def settled() -> None:
            nonlocal counted
            if counted:
                counted = False
                if (left := self._pending.get(client, 0) - 1) > 0:
                    self._pending[client] = left
                else:
                    self._pending.pop(client, None)

        async def noting(message: MutableMapping[str, Any]) -> None:
            if message.get("type") == "http.response.start":
                opened = dict(message.get("headers") or []).get(b"mcp-session-id")
                if opened is not None:
                    self._owner[opened.decode("latin-1")] = client
                    self._used[opened.decode("latin-1")] = anyio.current_time()
                settled()
            await send(message)

        try:
            await manager.handle_request(scope, receive, noting)
        finally:
            settled()

    async def _room_for(self, manager: StreamableHTTPSessionManager, client: str) -> bool:
        """Whether `client` may open a session, after closing the one idle longest where a cap is reached."""
        open_now: dict[str, Any] = getattr(manager, "_server_instances", {})
        for gone in [sid for sid in self._owner if sid not in open_now]:
            self._owner.pop(gone, None)
            self._used.pop(gone, None)
        busy = {sid for sid in self._owner if getattr(open_now.get(sid), "_requests_in_flight", 1) != 0}
        pending = self._pending.get(client, 0)
        room, oldest = reclaim(self._owner, self._used, busy, client, len(open_now), pending=pending)
        if oldest is None:
            return room
        log.info("closing the idle MCP session %s to open a new one", oldest[:8])
        self._owner.pop(oldest, None)
        self._used.pop(oldest, None)
        await manager._discard_session(oldest, open_now[oldest])  # the SDK has no public close
        return True

    async def loaded(self) -> None:
        """Wait until the SDK is imported (and started): whatever else imports from `mcp` in this process (the
        authorization server's routes) must not import it at the same time as the loader's thread, or Python's
        import locks deadlock."""
        await self._start()

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


def reclaim(
    owners: Mapping[str, str],
    used: Mapping[str, float],
    busy: AbstractSet[str],
    client: str,
    open_count: int,
    *,
    pending: int = 0,
) -> tuple[bool, str | None]:
    """Whether `client` may open a session, and which session to close first for it: none under both caps; at its
    own cap its session idle longest, at the total cap anyone's; no room when every candidate has a request in
    flight (an open stream counts). `pending` are the client's openings still being answered: they count against
    its cap but cannot be closed."""
    own = [sid for sid, owner in owners.items() if owner == client]
    if len(own) + pending >= SESSIONS_PER_CLIENT:
        candidates = own
    elif open_count >= MAX_SESSIONS:
        candidates = list(owners)
    else:
        return True, None
    idle = [sid for sid in candidates if sid not in busy]
    if not idle:
        return False, None
    return True, min(idle, key=lambda sid: used.get(sid, 0.0))


def _header(scope: Scope, name: bytes) -> str | None:
    for key, value in scope.get("headers") or []:
        if key.lower() == name:
            return bytes(value).decode("latin-1")
    return None


def _client(scope: Scope) -> str:
    """Who opens a session: a digest of its bearer (never the token itself), else its address."""
    authorization = _header(scope, b"authorization")
    if authorization:
        import hashlib

        return "bearer:" + hashlib.sha256(authorization.encode("latin-1")).hexdigest()
    peer = scope.get("client")
    return f"address:{peer[0]}" if peer else "address:?"


async def _unavailable(send: Send, message: str) -> None:
    """503 with a retry hint, as the SDK answers its own session limit: JSON-RPC error, no request id."""
    body = json.dumps({"jsonrpc": "2.0", "id": None, "error": {"code": -32603, "message": message}}).encode()
    headers = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(body)).encode()),
        (b"retry-after", str(RETRY_AFTER_SECONDS).encode()),
    ]
    await send({"type": "http.response.start", "status": 503, "headers": headers})
    await send({"type": "http.response.body", "body": body})


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
