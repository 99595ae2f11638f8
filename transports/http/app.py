"""The HTTP API: a Starlette app over the route table, behind MeMesh's own edge.

Order on every /v1 and /mcp request: the origin boundary, then bearer auth (remote listeners only; on /v1 a signed-in
dashboard's session cookie stands for the bearer, `signin.py`), then the body
(POST, bounded to 1 MB), then the route — for /mcp, MCP's streamable HTTP transport (transports/mcp/streamable.py):
memesh-mcp's own MCP server, on this listener's resources. One trailing slash is ignored (`/v1/health/` is
`/v1/health`); an unknown route or method is `route.not-found`. Every answer carries the security headers, and a
HEAD answer carries no body.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, MutableMapping
from contextlib import asynccontextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anyio.to_thread
from returns.result import Failure, Success
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response

from memesh.app.members import caller_for_token, is_owner_token, owner_caller
from memesh.app.oauth import guarded_caller, is_access_token
from memesh.context import Caller
from memesh.errors import ErrorCode, MemeshError, out_of_descriptors
from memesh.transports.http import respond, signin
from memesh.transports.http.body import Disconnected, read_limited
from memesh.transports.http.boundary import CALLER_KEY, check_origin, invalid_token, presented_bearer
from memesh.transports.http.errors import BODY_LIMIT_BYTES, HttpFailure, incomplete_body
from memesh.transports.http.oauth import base_url, is_oauth_path, resource_metadata_url
from memesh.transports.http.routes import ROUTES
from memesh.transports.http.runtime import Runtime
from memesh.transports.mcp.streamable import MCP_PATH, McpOverHttp

if TYPE_CHECKING:
    from memesh.settings import Settings

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Any]]
Send = Callable[[Message], Awaitable[None]]

SECURITY_HEADERS = [
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
    (b"referrer-policy", b"strict-origin-when-cross-origin"),
]


async def _no_route(request: Request, _exc: Exception) -> Response:
    # Starlette's 404 (no path matched) and 405 (no method matched) are both "no such route" in the spec's terms.
    path = request.scope.get("raw_path", b"").decode("latin-1").split("?", 1)[0] or request.url.path
    return respond.refused(MemeshError(ErrorCode.ROUTE_NOT_FOUND, f"No route for {request.method} {path}"))


def _headers(scope: Scope) -> dict[str, str]:
    headers: dict[str, str] = {}
    for name, value in scope.get("headers", []):
        headers.setdefault(name.decode("latin-1").lower(), value.decode("latin-1"))
    return headers


def _without_trailing_slash(scope: Scope) -> Scope:
    path: str = scope["path"]
    if len(path) > 1 and path.endswith("/"):
        scope = dict(scope)
        scope["path"] = path[:-1]
        raw = scope.get("raw_path")
        if raw:
            head, sep, query = raw.partition(b"?")
            scope["raw_path"] = (head[:-1] if head.endswith(b"/") and len(head) > 1 else head) + sep + query
    return scope


class MemeshHttpApp:
    """One listener's app: `remote` listeners require the bearer `token` and skip the loopback Host check."""

    def __init__(
        self,
        *,
        remote: bool = False,
        token: str | None = None,
        db_path: Path | str | None = None,
        update_fetch: Callable[[], str | None] | None = None,
        settings: Settings | None = None,
    ) -> None:
        self.remote = remote
        self.token = token
        self._owner: Caller | None = None  # the owner's Caller, named once by the local author setting
        # `update_fetch`: the package-index lookup GET /v1/update-status uses (None: never looked up).
        self.runtime = Runtime(db_path, update_fetch, settings)
        # MCP at /mcp: started by its first request, on the same resources (one connection per worker thread).
        self.mcp = McpOverHttp(self.runtime.resources, body_limit=BODY_LIMIT_BYTES)

        @asynccontextmanager
        async def lifespan(_app: Starlette) -> AsyncIterator[None]:
            async with self.mcp.running():
                yield
            self.close()

        self.router = Starlette(
            routes=ROUTES,
            exception_handlers={HTTPException: _no_route},
            lifespan=lifespan,
        )
        self.router.router.redirect_slashes = False
        self.router.state.runtime = self.runtime
        self._oauth: Starlette | None = None  # the authorization server's routes, built on first use
        # The dashboard's sign-in on a remote listener (signin.signed_in_member reads it from request.app.state).
        self.signin = signin.SignIn(remote=remote, token=token, runtime=self.runtime)
        self.router.state.signin = self.signin

    async def oauth(self) -> Starlette:
        """The authorization server of a remote listener (transports/http/oauth): built on its first request, so
        the mcp SDK's import does not delay the listener's first answer, once the SDK is loaded (its loader's
        thread and this one must not import it at once)."""
        if self._oauth is None:
            await self.mcp.loaded()
            from memesh.transports.http.oauth.routes import oauth_routes

            app = Starlette(routes=oauth_routes(self.runtime.resources, self.token or ""))
            app.router.redirect_slashes = False
            self._oauth = app
        return self._oauth

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.router(scope, receive, send)
            return
        scope = _without_trailing_slash(scope)
        head = scope["method"].upper() == "HEAD"
        started = False

        async def secured(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
                message = dict(message)
                message["headers"] = [*message.get("headers", []), *SECURITY_HEADERS]
            elif message["type"] == "http.response.body" and head:
                message = {**message, "body": b""}
            await send(message)

        try:
            await self._answer(scope, receive, secured)
        except Exception as exc:
            # Whatever ran out of descriptors outside an endpoint (the edge, a page, the MCP SDK): 503, retry shortly.
            if started or not out_of_descriptors(exc):
                raise
            await respond.refused(MemeshError.no_descriptors())(scope, receive, secured)

    async def _answer(self, scope: Scope, receive: Receive, secured: Send) -> None:
        try:
            receive = await self._edge(scope, receive)
        except Disconnected:
            # granian reports a body it cannot decode (a malformed chunk) as a disconnect while the client still
            # waits for an answer: answer it as a bad body. A client that really left never reads this.
            await respond.from_failure(incomplete_body())(scope, receive, secured)
            return
        except HttpFailure as refused:
            response = respond.from_failure(refused)
            if self.remote and refused.status == 401 and scope["path"] == MCP_PATH:
                response.headers["www-authenticate"] = challenge(Request(scope), refused.error.code)
            await response(scope, receive, secured)
            return
        if self.remote and self.token and is_oauth_path(scope["path"]):
            await (await self.oauth())(scope, receive, secured)
            return
        if scope["path"] == MCP_PATH:
            await self.mcp(scope, receive, secured)
            return
        await self.router(scope, receive, secured)

    async def _edge(self, scope: Scope, receive: Receive) -> Receive:
        """The checks before any route: boundary, bearer, body limit; the body read so far, replayed to the route."""
        path: str = scope["path"]
        api = path == "/v1" or path.startswith("/v1/")
        if not api and path != MCP_PATH and path not in signin.PATHS:
            return receive
        headers = _headers(scope)
        refused = check_origin(headers, check_host=not self.remote)
        if refused is not None:
            raise refused
        if self.remote and path not in signin.PATHS:
            # A browser signed in to the dashboard carries its session cookie instead of a bearer (on /v1 only).
            signed_in = await self.signin.edge_caller(scope, headers) if api else None
            scope[CALLER_KEY] = signed_in or await self._caller(headers.get("authorization"), oauth=path == MCP_PATH)
        if scope["method"].upper() != "POST":
            return receive
        body = await read_limited(headers, receive)
        sent = False

        async def replay() -> Message:
            nonlocal sent
            if not sent:
                sent = True
                return {"type": "http.request", "body": body, "more_body": False}
            message: Message = await receive()
            return message

        return replay

    async def _caller(self, authorization: str | None, *, oauth: bool = False) -> Caller:
        """Who presents the bearer: the owner (its remote token, no database read) or a member, looked up on every
        request so that a revocation holds from the next one — on /mcp (`oauth`) also through an OAuth access token
        bound to one of them; 401 for anyone else."""
        presented = presented_bearer(authorization, self.token)
        if isinstance(presented, HttpFailure):
            raise presented
        owner_token = self.token or ""
        if is_owner_token(presented, owner_token):  # the owner's token: answered on the event loop, no thread hop
            if self._owner is None:
                self._owner = await anyio.to_thread.run_sync(owner_caller)
            return self._owner
        if oauth and is_access_token(presented):
            resources = self.runtime.resources
            found = await anyio.to_thread.run_sync(
                lambda: guarded_caller(resources, presented, owner_token=owner_token, now=datetime.now(UTC))
            )
        else:
            found = await anyio.to_thread.run_sync(
                lambda: caller_for_token(
                    self.runtime.resources, presented, owner_token=owner_token, now=datetime.now(UTC)
                )
            )
        match found:
            case Success(Caller() as caller):
                return caller
            case Success(None):
                raise invalid_token()
            case Failure(error):
                raise HttpFailure(error)
        raise AssertionError("unreachable")  # pragma: no cover

    def close(self) -> None:
        """Close the database connections (the app reopens them if another request arrives)."""
        self.runtime.close()


def challenge(request: Request, code: str) -> str:
    """RFC 9728 §5.1 / RFC 6750 §3: where a client finds how to get a token for /mcp (no error when none was sent)."""
    error = "" if code == ErrorCode.AUTH_MISSING_BEARER else 'error="invalid_token", '
    return f'Bearer {error}resource_metadata="{resource_metadata_url(base_url(request))}"'


_REAL_LOOKUP: Any = object()


def create_app(
    *,
    remote: bool = False,
    token: str | None = None,
    db_path: Path | str | None = None,
    update_fetch: Callable[[], str | None] | None = _REAL_LOOKUP,
    settings: Settings | None = None,
) -> MemeshHttpApp:
    """The ASGI app for one listener; `remote=True` requires `Authorization: Bearer <token>` on every /v1 and /mcp
    request.

    `update_fetch` is the package-index lookup of GET /v1/update-status: by default the real one, unless
    MEMESH_UPDATE_CHECK=0 turns it off. Tests pass their own. `settings`: the process's (`memesh serve --database`
    hands its own); None reads them on first use.
    """
    if update_fetch is _REAL_LOOKUP:
        from memesh.app.resources import package_index_lookup

        update_fetch = package_index_lookup()
    return MemeshHttpApp(remote=remote, token=token, db_path=db_path, update_fetch=update_fetch, settings=settings)


def preload(app: MemeshHttpApp) -> None:
    """Import and read, before serving, everything a request to `app` would on first use: every route's operation,
    the MCP tools, the dashboard page and the OpenAPI document (memesh.app.preload says why)."""
    from memesh.app.preload import preload as preload_ops
    from memesh.app.registry import TOOLS
    from memesh.transports import dashboard
    from memesh.transports.http.openapi import document
    from memesh.transports.http.routes import API, PAGES

    preload_ops([*(route.op for route in API), *TOOLS])
    dashboard.page()
    document(API, PAGES)
