"""OAuth 2.1 for `/mcp` on a remote listener: every route of `memesh serve` as its own authorization server, in one
table, built from the mcp SDK's handlers (`mcp.server.auth.handlers`).

The SDK's `create_auth_routes` builds the same handlers around a fixed issuer URL; a listener on 0.0.0.0 is reached
under whatever name its clients use, so the two metadata documents are built per request from that name (or from
MEMESH_PUBLIC_URL, for a server behind a proxy), and the registration's metadata names "none" among the token
endpoint's authentication methods (public clients: Claude Code, Claude Desktop), which the SDK's does not.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from mcp.server.auth.handlers.authorize import AuthorizationHandler
from mcp.server.auth.handlers.register import RegistrationHandler
from mcp.server.auth.handlers.revoke import RevocationHandler
from mcp.server.auth.handlers.token import TokenHandler
from mcp.server.auth.routes import build_metadata, cors_middleware
from mcp.server.auth.settings import ClientRegistrationOptions, RevocationOptions
from mcp.server.transport_security import RequestBodyLimitMiddleware
from mcp.shared.auth import ProtectedResourceMetadata
from pydantic import AnyHttpUrl
from starlette.middleware.cors import CORSMiddleware
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route, request_response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from memesh.app import oauth
from memesh.app.resources import Resources
from memesh.core import oauth as rules
from memesh.transports.http.errors import RETRY_AFTER_SECONDS, status_for
from memesh.transports.http.oauth import MCP_RESOURCE, PROTECTED_RESOURCE, base_url
from memesh.transports.http.oauth.approval import ApprovalPage
from memesh.transports.http.oauth.provider import APPROVAL_PATH, HashedSecretAuthenticator, MemeshOAuthProvider

FORM_BYTES = 64 * 1024  # /token, /revoke and the approval page take small forms


def _json(body: dict[str, object]) -> Response:
    # Built from the Host it was asked under: not to be cached for another.
    return JSONResponse(body, headers={"cache-control": "no-store"})


async def protected_resource(request: Request) -> Response:
    """RFC 9728 protected-resource metadata of /mcp: this same server is its authorization server."""
    base = base_url(request)
    metadata = ProtectedResourceMetadata(
        resource=AnyHttpUrl(f"{base}{MCP_RESOURCE}"),
        authorization_servers=[AnyHttpUrl(base)],
        resource_name="MeMesh",
        bearer_methods_supported=["header"],
    )
    body = metadata.model_dump(mode="json", exclude_none=True)
    body["authorization_servers"] = [base]  # the issuer exactly as its own metadata spells it (no trailing slash)
    return _json(body)


async def authorization_server(request: Request) -> Response:
    """RFC 8414 metadata: registration, PKCE S256, authorization_code + refresh_token, public clients allowed."""
    base = base_url(request)
    metadata = build_metadata(
        AnyHttpUrl(base),
        None,
        ClientRegistrationOptions(enabled=True),
        RevocationOptions(enabled=True),
    )
    methods = ["none", "client_secret_post", "client_secret_basic"]
    metadata.token_endpoint_auth_methods_supported = methods
    metadata.revocation_endpoint_auth_methods_supported = methods
    body = metadata.model_dump(mode="json", exclude_none=True)
    body["issuer"] = base  # RFC 8414 §3.3: compared as a string with the server named in the resource metadata
    return _json(body)


def _limited(app: ASGIApp, limit: int) -> ASGIApp:
    return RequestBodyLimitMiddleware(app, limit)


def _cors(app: ASGIApp, methods: list[str]) -> ASGIApp:
    # As the SDK does for the endpoints a browser-based client calls (the MCP Inspector): any origin, no cookies.
    return CORSMiddleware(app=app, allow_origins="*", allow_methods=methods, allow_headers=["mcp-protocol-version"])


def _endpoint(handler: Callable[[Request], Awaitable[Response]]) -> ASGIApp:
    return request_response(handler)


def _secret_optional(app: ASGIApp) -> ASGIApp:
    """The SDK's revocation request model requires a `client_secret` field, which a public client (RFC 7009 §2.1:
    authenticated as at the token endpoint, so by its id alone) does not send: the form is handed on with an empty
    one added when it has none. The body was bounded before this (FORM_BYTES)."""

    async def app_with_secret(scope: Scope, receive: Receive, send: Send) -> None:
        body, more = b"", True
        while more:
            message = await receive()
            body += message.get("body", b"")
            more = message.get("more_body", False)
        if b"client_secret=" not in body:
            body += b"&client_secret=" if body else b"client_secret="
        sent = False

        async def replay() -> Message:
            nonlocal sent
            if not sent:
                sent = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await app(scope, replay, send)

    return app_with_secret


class StoreRefusals:
    """An OAuth route whose database fails under it (a dropped connection, a restart, a lock not granted in time)
    answers in OAuth's error format (RFC 6749 §5.2) — 503 `temporarily_unavailable` with Retry-After when the
    database cannot serve now — never a 500 with a trace: each change is one transaction, so nothing was half
    written and the client asks again. Any other exception is a bug, and propagates as one."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        started = False

        async def watched(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, receive, watched)
        except Exception as exc:
            error = oauth.store_failure(exc)
            if error is None or started:
                raise
            status = status_for(error)
            headers = {"cache-control": "no-store"}
            if status == 503:
                headers["retry-after"] = str(RETRY_AFTER_SECONDS)
            word = "temporarily_unavailable" if status == 503 else "server_error"
            body = {"error": word, "error_description": error.message}
            await JSONResponse(body, status_code=status, headers=headers)(scope, receive, send)


def oauth_routes(resources: Resources, owner_token: str) -> list[BaseRoute]:
    """The authorization server's routes and the resource metadata, for a remote listener whose owner token is
    `owner_token`; a database failure under any of them is answered by `StoreRefusals`."""
    routes = _routes(resources, owner_token)
    for route in routes:
        route.app = StoreRefusals(route.app)
    return list(routes)


def _routes(resources: Resources, owner_token: str) -> list[Route]:
    provider = MemeshOAuthProvider(resources, owner_token)
    authenticator = HashedSecretAuthenticator(provider)
    registration = RegistrationHandler(provider, options=ClientRegistrationOptions(enabled=True))
    page = ApprovalPage(resources, owner_token)
    get_post = ["GET", "OPTIONS"]
    post = ["POST", "OPTIONS"]
    return [
        Route(PROTECTED_RESOURCE, cors_middleware(protected_resource, get_post), methods=get_post),
        Route(f"{PROTECTED_RESOURCE}{MCP_RESOURCE}", cors_middleware(protected_resource, get_post), methods=get_post),
        Route(
            "/.well-known/oauth-authorization-server",
            cors_middleware(authorization_server, get_post),
            methods=get_post,
        ),
        Route(
            "/authorize",
            _limited(_endpoint(AuthorizationHandler(provider).handle), FORM_BYTES),
            methods=["GET", "POST"],
        ),
        Route(APPROVAL_PATH, page.get, methods=["GET"]),
        Route(APPROVAL_PATH, _limited(_endpoint(page.post), FORM_BYTES), methods=["POST"]),
        Route(
            "/token",
            _cors(_limited(_endpoint(TokenHandler(provider, authenticator).handle), FORM_BYTES), post),
            methods=post,
        ),
        Route(
            "/register",
            _cors(_limited(_endpoint(registration.handle), rules.REGISTRATION_BODY_BYTES), post),
            methods=post,
        ),
        Route(
            "/revoke",
            _cors(
                _limited(_secret_optional(_endpoint(RevocationHandler(provider, authenticator).handle)), FORM_BYTES),
                post,
            ),
            methods=post,
        ),
    ]
