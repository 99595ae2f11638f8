"""The dashboard's sign-in on a remote listener (issue 32): the session cookie at the edge, and the three session
routes (`GET /dashboard/session`, `POST /dashboard/sign-in`, `POST /dashboard/sign-out`).

A browser cannot send the bearer header the API asks of a remote listener, so a person signs in once with their
token and the browser then carries a cookie: HttpOnly, SameSite=Strict, Path=/, Secure when the listener speaks TLS,
ending after a working day (sooner when the member's token does). The edge accepts the cookie on /v1 only (never on
/mcp, whose clients send bearers), turns it into the same `Caller` a bearer gives, and requires a state-changing
request to carry the session's CSRF token in `X-MeMesh-CSRF` as well. A loopback listener has no sign-in: its
dashboard works as it always did.

`signed_in_member(request)` is the one question other pages ask (the OAuth approval page): who is signed in here.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from http.cookies import CookieError, SimpleCookie
from typing import Any

import anyio.to_thread
from returns.result import Failure, Result, Success
from starlette.requests import Request
from starlette.responses import Response

from memesh.app import gate
from memesh.app.signin import Session, allowed, csrf_matches, csrf_token, load_secret, session_caller, sign_in
from memesh.context import Caller
from memesh.core.signin import COOKIE_NAME, CSRF_HEADER
from memesh.errors import ErrorCode, MemeshError
from memesh.model import iso_time
from memesh.transports.http import respond
from memesh.transports.http.errors import HttpFailure
from memesh.transports.http.handlers.common import endpoint, json_body
from memesh.transports.http.runtime import Runtime

SESSION_PATH = "/dashboard/session"
SIGN_IN_PATH = "/dashboard/sign-in"
SIGN_OUT_PATH = "/dashboard/sign-out"
PATHS = frozenset({SESSION_PATH, SIGN_IN_PATH, SIGN_OUT_PATH})
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
SIGNED_OUT_MESSAGE = "The dashboard session ended (signed out, revoked or expired): sign in again."
CSRF_MESSAGE = "A signed-in dashboard request that changes something must carry its X-MeMesh-CSRF token."


def session_cookie(headers: Mapping[str, str]) -> str | None:
    """The session cookie's value among the request's cookies, if there is one."""
    raw = headers.get("cookie")
    if not raw:
        return None
    jar: SimpleCookie = SimpleCookie()
    try:
        jar.load(raw)
    except CookieError:
        return None
    morsel = jar.get(COOKIE_NAME)
    return morsel.value if morsel is not None and morsel.value else None


def _is_tls(scope: Mapping[str, Any]) -> bool:
    return scope.get("scheme") == "https"


def set_session_cookie(response: Response, session: Session, *, now: datetime, tls: bool) -> None:
    response.set_cookie(
        COOKIE_NAME,
        session.cookie,
        max_age=max(0, session.expires - int(now.timestamp())),
        path="/",
        secure=tls,
        httponly=True,
        samesite="strict",
    )


def clearing_cookie(*, tls: bool) -> str:
    """A Set-Cookie header value that removes the session cookie from the browser."""
    secure = "; Secure" if tls else ""
    return f"{COOKIE_NAME}=; Max-Age=0; Path=/; HttpOnly; SameSite=Strict{secure}"


class SignIn:
    """One listener's sign-in: whether it is remote, the owner's token, its resources, and the sealing key (read on
    the first sign-in, so a loopback listener never makes one)."""

    def __init__(self, *, remote: bool, token: str | None, runtime: Runtime) -> None:
        self.remote = remote
        self.token = token or ""
        self.runtime = runtime
        self._secret: bytes | None = None

    async def secret(self) -> bytes:
        if self._secret is None:
            self._secret = await anyio.to_thread.run_sync(load_secret)
        return self._secret

    async def caller(self, cookie: str) -> Result[Caller | None, MemeshError]:
        """Who `cookie` signs in, checked against the members table now."""
        secret = await self.secret()
        return await anyio.to_thread.run_sync(
            lambda: session_caller(
                self.runtime.resources, cookie, owner_token=self.token, secret=secret, now=datetime.now(UTC)
            )
        )

    async def edge_caller(self, scope: Mapping[str, Any], headers: Mapping[str, str]) -> Caller | None:
        """The caller a /v1 request signed in by cookie is made by; None when it carries no session cookie (the
        bearer rules then apply). 401 for a session that ended, 403 for a state-changing request without its
        CSRF token."""
        cookie = session_cookie(headers)
        if cookie is None or headers.get("authorization"):
            return None
        match await self.caller(cookie):
            case Success(Caller() as caller):
                pass
            case Success(None):
                raise HttpFailure(
                    MemeshError(ErrorCode.AUTH_INVALID_TOKEN, SIGNED_OUT_MESSAGE),
                    headers={"set-cookie": clearing_cookie(tls=_is_tls(scope))},
                )
            case Failure(error):
                raise HttpFailure(error)
        changes = str(scope.get("method", "GET")).upper() not in SAFE_METHODS
        if changes and not csrf_matches(await self.secret(), cookie, headers.get(CSRF_HEADER)):
            raise HttpFailure(MemeshError(ErrorCode.AUTH_CROSS_ORIGIN, CSRF_MESSAGE))
        return caller


def _signin(request: Request) -> SignIn:
    found: SignIn = request.app.state.signin
    return found


async def signed_in_member(request: Request) -> Caller | None:
    """Who is signed in to this listener's dashboard in `request`'s browser: the owner or a member (checked against
    the members table now, so a revoked member is no one), or None. Always None on a loopback listener. A database
    failure is an HttpFailure with the spec's code."""
    signin = _signin(request)
    cookie = session_cookie({"cookie": request.headers.get("cookie", "")})
    if not signin.remote or cookie is None:
        return None
    match await signin.caller(cookie):
        case Success(Caller() as found):
            return found
        case Success(None):
            return None
        case Failure(error):
            raise HttpFailure(error)
    raise AssertionError("unreachable")  # pragma: no cover


def _state(signin: SignIn, caller: Caller | None, *, csrf: str | None = None, expires: int | None = None) -> Any:
    from memesh.transports.http.routes import API  # the table that imports these pages

    answer: dict[str, Any] = {"remote": signin.remote, "signedIn": caller is not None}
    if caller is not None:
        answer["member"] = {
            "name": caller.name,
            "role": caller.role,
            "projects": None if caller.projects is None else list(caller.projects),
            "owner": caller.owner,
        }
        answer["allowed"] = allowed(caller, [route.op.name for route in API])
        if csrf is not None:
            answer["csrf"] = csrf
        if expires is not None:
            answer["expiresAt"] = iso_time(datetime.fromtimestamp(expires, UTC))
    return answer


def _no_parameters(request: Request) -> None:
    for name, _ in request.query_params.multi_items():
        raise HttpFailure(MemeshError(ErrorCode.BAD_PARAM, f"{name}: unknown parameter", {"param": name}))


@endpoint
async def session(request: Request) -> Response:
    """GET /dashboard/session: whether this listener asks for a sign-in, and who is signed in (with the CSRF token
    the page sends back on every change, and which operations the person may run)."""
    _no_parameters(request)
    signin = _signin(request)
    cookie = session_cookie({"cookie": request.headers.get("cookie", "")})
    caller = await signed_in_member(request)
    if caller is None or cookie is None:
        return respond.ok(_state(signin, None))
    return respond.ok(_state(signin, caller, csrf=csrf_token(await signin.secret(), cookie)))


@endpoint
async def sign_in_page(request: Request) -> Response:
    """POST /dashboard/sign-in {token}: the session cookie for the person the token belongs to; 401
    auth.invalid-token for a token that is no one's (revoked, expired, unknown)."""
    signin = _signin(request)
    params: dict[str, list[str]] = {}
    for name, value in request.query_params.multi_items():
        params.setdefault(name, []).append(value)
    match gate.admit_parts("http/sign_in.input", gate.Parts(params, await json_body(request))):
        case Failure(error):
            raise HttpFailure(error)
        case Success(arguments):
            pass
    if not signin.remote:
        raise HttpFailure(MemeshError(ErrorCode.ROUTE_NOT_FOUND, "A loopback listener has no sign-in."))
    if not signin.token:
        raise HttpFailure(MemeshError(ErrorCode.AUTH_NOT_CONFIGURED, "remote bearer auth not configured here"))
    presented = str(arguments["token"]).strip().encode("utf-8")
    secret = await signin.secret()
    now = datetime.now(UTC)
    outcome = await anyio.to_thread.run_sync(
        lambda: sign_in(signin.runtime.resources, presented, owner_token=signin.token, secret=secret, now=now)
    )
    match outcome:
        case Failure(error):
            raise HttpFailure(error)
        case Success(None):
            raise HttpFailure(MemeshError(ErrorCode.AUTH_INVALID_TOKEN, "That token is not accepted here."))
        case Success(Session() as made):
            pass
    response = respond.ok(_state(signin, made.caller, csrf=made.csrf, expires=made.expires))
    set_session_cookie(response, made, now=now, tls=_is_tls(request.scope))
    return response


@endpoint
async def sign_out_page(request: Request) -> Response:
    """POST /dashboard/sign-out: the session cookie removed from this browser. A live session must send its CSRF
    token (a cross-site page cannot sign a person out)."""
    _no_parameters(request)
    signin = _signin(request)
    cookie = session_cookie({"cookie": request.headers.get("cookie", "")})
    live = signin.remote and cookie is not None and await signed_in_member(request) is not None
    sent = request.headers.get(CSRF_HEADER)
    if live and cookie is not None and not csrf_matches(await signin.secret(), cookie, sent):
        raise HttpFailure(MemeshError(ErrorCode.AUTH_CROSS_ORIGIN, CSRF_MESSAGE))
    response = respond.ok(_state(signin, None))
    response.headers.append("set-cookie", clearing_cookie(tls=_is_tls(request.scope)))
    return response
