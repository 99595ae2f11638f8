"""The HTTP API as a plain ASGI app: decode the request, call the core, answer in the spec's envelopes.

Order on every /v1 request: the origin boundary, then bearer auth (remote listeners only), then the body (POST,
bounded to 1 MB), then the route. Operations run in a worker thread on the app's one store, one at a time.
"""

from __future__ import annotations

import sys
import threading
import traceback
from collections.abc import Awaitable, Callable, MutableMapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import parse_qs, unquote

import anyio.to_thread
from returns.result import Failure, Result, Success

import memesh
from memesh import jsontext
from memesh.app import dispatch
from memesh.app.registry import TOOLS
from memesh.context import CallContext
from memesh.core.storable import storable_input
from memesh.errors import ErrorCode, MemeshError
from memesh.ops import entities, settings
from memesh.store.sqlite import SqliteStore, StoreError, open_store
from memesh.transports.http.body import Disconnected, decode_json, read_limited
from memesh.transports.http.boundary import check_bearer, check_origin
from memesh.transports.http.errors import HttpFailure, failure, success
from memesh.transports.http.reads import POST_ROUTES, Fetcher, get_routes, parse_query

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Any]]
Send = Callable[[Message], Awaitable[None]]
T = TypeVar("T")

SECURITY_HEADERS = [
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
    (b"referrer-policy", b"strict-origin-when-cross-origin"),
]

TOOL_ROUTES = {f"/v1/{tool.name}": tool.name for tool in TOOLS if tool.http_post}
PROJECT_REQUIRED = "project query parameter is required (the project name as shown by /v1/projects)"
RETIRED = {
    "/v1/consolidate": (
        "POST /v1/consolidate is retired. It rewrote memories with an LLM summary and deleted the originals, with no "
        "review step. Use the MCP work_package tool to stage an agent result, then review and accept or reject the "
        "proposal."
    ),
    "/v1/verify": (
        "POST /v1/verify is retired along with the agentic-orchestration experiment. It recorded a verification "
        "report for background-agent work; the protocol it served was removed without ever leaving opt-in. Run your "
        "own verification (typecheck/tests/lint) and store conclusions with POST /v1/remember if you want them "
        "remembered."
    ),
}
ENTITY_PREFIX = "/v1/entities/"
DB_UNAVAILABLE = "Database not initialized"
INTERNAL = "Internal server error"


@dataclass(frozen=True)
class Request:
    """What the routes need from an ASGI scope: method, path (decoded and as sent), first value of each header.

    `raw_path` is None when the server gave no `raw_path`; `sent_path` is then the decoded path.
    """

    method: str
    path: str
    raw_path: str | None
    headers: dict[str, str]
    query: dict[str, list[str]]

    @property
    def sent_path(self) -> str:
        return self.raw_path if self.raw_path is not None else self.path

    @classmethod
    def from_scope(cls, scope: Scope) -> Request:
        headers: dict[str, str] = {}
        for name, value in scope.get("headers", []):
            headers.setdefault(name.decode("latin-1").lower(), value.decode("latin-1"))
        raw = scope.get("raw_path")
        raw_path = raw.decode("latin-1").split("?", 1)[0] if raw else None
        query = parse_qs(scope.get("query_string", b"").decode("utf-8", "replace"), keep_blank_values=True)
        return cls(scope["method"].upper(), scope["path"], raw_path, headers, query)

    @property
    def route(self) -> str:
        """The decoded path, one trailing slash ignored (as `/v1/health/` reaches `/v1/health`)."""
        return self.path[:-1] if len(self.path) > 1 and self.path.endswith("/") else self.path


def _param(request: Request, name: str) -> str | None:
    values = request.query.get(name)
    if not values:
        return None
    if len(values) > 1:
        raise HttpFailure(MemeshError(ErrorCode.BAD_PARAM, f"{name} must be given once", {"param": name}))
    return values[0]


def _entity_name(request: Request) -> str | None:
    """The `:name` of /v1/entities/:name, percent-decoded from the path as sent (so `%2F` is part of a name)."""
    sent = request.sent_path.removesuffix("/")
    segment = sent[len(ENTITY_PREFIX) :]
    if not sent.startswith(ENTITY_PREFIX) or not segment or "/" in segment:
        return None
    if request.raw_path is None:  # the server decoded the path already
        return segment
    try:
        return unquote(segment, errors="strict")
    except UnicodeDecodeError as exc:
        raise HttpFailure(MemeshError(ErrorCode.BAD_PARAM, "name is not valid UTF-8", {"param": "name"})) from exc


def _unwrap(result: Result[Any, MemeshError]) -> Any:
    match result:
        case Success(data):
            return data
        case Failure(error):
            raise HttpFailure(error)
    raise AssertionError("unreachable")  # pragma: no cover


class MemeshHttpApp:
    """One listener's app: `remote` listeners require the bearer `token` and skip the loopback Host check."""

    def __init__(
        self,
        *,
        remote: bool = False,
        token: str | None = None,
        db_path: Path | None = None,
        update_fetch: Fetcher | None = None,
    ) -> None:
        self.remote = remote
        self.token = token
        self.db_path = db_path
        self.reads = get_routes(update_fetch)
        self._store: SqliteStore | None = None
        # One SQLite connection per app, so one operation at a time touches it.
        self._lock = threading.Lock()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await self._lifespan(receive, send)
            return
        if scope["type"] != "http":
            return
        request = Request.from_scope(scope)
        if request.route == "/dashboard" and request.method in ("GET", "HEAD"):
            await _respond_page(send, head=request.method == "HEAD")
            return
        try:
            status, body = await self._handle(request, receive)
            payload = _encode(body)
        except Disconnected:
            return
        except HttpFailure as refused:
            status, payload = refused.status, _encode(failure(refused.error, refused.extra))
        except Exception:
            # The details go to the server's log, never onto the wire.
            traceback.print_exc(file=sys.stderr)
            status, payload = 500, _encode(failure(MemeshError(ErrorCode.INTERNAL, INTERNAL)))
        await _respond(send, status, payload, head=request.method == "HEAD")

    async def _lifespan(self, receive: Receive, send: Send) -> None:
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                self.close()
                await send({"type": "lifespan.shutdown.complete"})
                return

    async def _handle(self, request: Request, receive: Receive) -> tuple[int, Any]:
        method = "GET" if request.method == "HEAD" else request.method
        route = request.route
        payload = b""
        if route == "/v1" or route.startswith("/v1/"):
            refused = check_origin(request.headers, check_host=not self.remote)
            if refused is None and self.remote:
                refused = check_bearer(request.headers.get("authorization"), self.token)
            if refused is not None:
                raise refused
            if method == "POST":
                payload = await read_limited(request.headers, receive)
        if method == "GET":
            if route == "/v1/health":
                return 200, success(await self._run(_health))
            if route == "/v1/entities":
                return 200, success(await self._list(request))
            if route == "/v1/task-state":
                return 200, success(await self._task_state(request))
            if route == "/v1/config":
                return 200, success({"config": _unwrap(await anyio.to_thread.run_sync(settings.read_config))})
            if route in self.reads:
                return 200, success(await self._read(route, request))
            name = _entity_name(request)
            if name is not None:
                return 200, success(_unwrap(await self._run(lambda store: entities.get_entity(store, name))))
        elif method == "POST":
            if route in TOOL_ROUTES:
                body = decode_json(request.headers.get("content-type"), payload)
                return 200, success(_unwrap(await self._run(lambda store: _call(TOOL_ROUTES[route], store, body))))
            if route == "/v1/config":
                body = decode_json(request.headers.get("content-type"), payload)
                return 200, success(_unwrap(await anyio.to_thread.run_sync(_update_config, body)))
            if route in POST_ROUTES:
                work = POST_ROUTES[route]
                return 200, success(_unwrap(await self._run(lambda store: work(store, _http_context()))))
            if route in RETIRED:
                raise HttpFailure(MemeshError(ErrorCode.ROUTE_RETIRED, RETIRED[route]))
        raise HttpFailure(MemeshError(ErrorCode.ROUTE_NOT_FOUND, f"No route for {request.method} {request.sent_path}"))

    async def _list(self, request: Request) -> Any:
        entity_type = _param(request, "type") or None
        limit_text = _param(request, "limit")
        limit = entities.LIST_DEFAULT_LIMIT
        if limit_text is not None:
            # Length first: int() refuses strings past 4300 digits, and nothing that long is in range anyway.
            if len(limit_text) > 9 or not (limit_text.isascii() and limit_text.isdigit()):
                raise HttpFailure(entities.bad_limit())
            limit = int(limit_text)
        return _unwrap(await self._run(lambda store: entities.list_entities(store, entity_type, limit)))

    async def _read(self, path: str, request: Request) -> Any:
        route = self.reads[path]
        query = _unwrap(parse_query(route, request.query))
        if not route.needs_store:
            return _unwrap(await anyio.to_thread.run_sync(route.run, None, query, _http_context()))
        return _unwrap(await self._run(lambda store: route.run(store, query, _http_context())))

    async def _task_state(self, request: Request) -> Any:
        project = _param(request, "project")
        if project is None or not project.strip() or len(project) > 200:
            raise HttpFailure(MemeshError(ErrorCode.BAD_PARAM, PROJECT_REQUIRED, {"param": "project"}))
        return _unwrap(await self._run(lambda store: _call("task_state", store, {"project": project})))

    async def _run(self, work: Callable[[SqliteStore], T]) -> T:
        return await anyio.to_thread.run_sync(self._locked, work)

    def _locked(self, work: Callable[[SqliteStore], T]) -> T:
        with self._lock:
            if self._store is None:
                try:
                    self._store = open_store(self.db_path)
                except StoreError as exc:
                    print(f"MeMesh HTTP: {exc}", file=sys.stderr)
                    raise HttpFailure(MemeshError(ErrorCode.INTERNAL, DB_UNAVAILABLE), status=503) from exc
            return work(self._store)

    def close(self) -> None:
        """Close the store (the app reopens it if another request arrives)."""
        with self._lock:
            if self._store is not None:
                self._store.close()
                self._store = None


def _health(store: SqliteStore) -> dict[str, Any]:
    return {"status": "ok", "version": memesh.__version__, "entity_count": store.count()}


def _http_context() -> CallContext:
    return CallContext(source_host="http", agent_view=False)


def _call(tool: str, store: SqliteStore, body: Any) -> Result[Any, MemeshError]:
    return dispatch.call(tool, store, body, _http_context())


def _update_config(body: Any) -> Result[Any, MemeshError]:
    # The gate every tool input passes: too deep is refused, a lone surrogate becomes U+FFFD (so it can be answered).
    checked = storable_input(body)
    if isinstance(checked, Failure):
        return checked
    body = checked.unwrap()
    refused = dispatch.validate("http/config.input", body)
    return refused if refused is not None else settings.update_config(body)


def _encode(body: Any) -> bytes:
    # jsontext: a stored number too large for a double (sessionLimit 1e400) is returned as written, not a 500.
    # surrogatepass: whatever a message quotes, the answer is still bytes (and still JSON).
    return jsontext.dumps(body, ensure_ascii=False, separators=(",", ":")).encode("utf-8", "surrogatepass")


async def _respond(send: Send, status: int, payload: bytes, *, head: bool = False) -> None:
    headers = [
        (b"content-type", b"application/json; charset=utf-8"),
        (b"content-length", str(len(payload)).encode()),
        *SECURITY_HEADERS,
    ]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": b"" if head else payload})


async def _respond_page(send: Send, *, head: bool) -> None:
    from memesh.transports import dashboard

    html, policy = dashboard.page()
    headers = [
        (b"content-type", b"text/html; charset=utf-8"),
        (b"content-length", str(len(html)).encode()),
        (b"content-security-policy", policy.encode()),
        (b"cache-control", b"no-store"),
        *SECURITY_HEADERS,
    ]
    await send({"type": "http.response.start", "status": 200, "headers": headers})
    await send({"type": "http.response.body", "body": b"" if head else html})


_REAL_LOOKUP: Any = object()


def create_app(
    *,
    remote: bool = False,
    token: str | None = None,
    db_path: Path | None = None,
    update_fetch: Fetcher | None = _REAL_LOOKUP,
) -> MemeshHttpApp:
    """The ASGI app for one listener; `remote=True` requires `Authorization: Bearer <token>` on every /v1 request.

    `update_fetch` is the package-index lookup GET /v1/update-status uses; by default the real one, unless
    MEMESH_UPDATE_CHECK=0 turns it off. Tests pass their own.
    """
    if update_fetch is _REAL_LOOKUP:
        from memesh.adapters.update_check import default_fetcher

        update_fetch = default_fetcher()
    return MemeshHttpApp(remote=remote, token=token, db_path=db_path, update_fetch=update_fetch)
