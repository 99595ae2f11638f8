"""The approval page of `memesh serve`'s authorization server: where a person lets an app (Claude Code, Claude Desktop,
a ChatGPT connector) reach this MeMesh as them.

`/authorize` (the SDK's handler) validates the request and sends the browser here. The page names the app and where
the code goes, and asks for the person's member token (or the owner's remote token); once it is entered, it shows
what the app will be allowed (the member's name, role and projects) and asks to approve. Every form carries a
one-time nonce bound to the request, repeated in a SameSite=Strict, HttpOnly cookie, so a page elsewhere cannot
post it; the page cannot be framed, loads nothing from outside, and after a few wrong tokens an address waits.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import time
from collections.abc import Callable
from html import escape
from typing import TypeVar

import anyio.to_thread
from mcp.server.auth.provider import construct_redirect_uri
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response

from memesh.app import oauth
from memesh.app.resources import Resources
from memesh.core import oauth as rules
from memesh.core.oauth import Backoff
from memesh.transports.http.boundary import check_origin

COOKIE = "memesh_oauth_nonce"
COOKIE_PATH = "/authorize"
MAX_TRACKED = 10_000  # addresses whose failures are remembered at once (the oldest are forgotten past it)
TOKEN_FIELD_CHARS = 512

STYLE = (
    "body{font-family:system-ui,sans-serif;max-width:34rem;margin:3rem auto;padding:0 1rem;color:#1d2330}"
    "h1{font-size:1.4rem}dl{display:grid;grid-template-columns:auto 1fr;gap:.3rem 1rem}dt{font-weight:600}"
    "input[type=password]{width:100%;padding:.5rem;font:inherit;box-sizing:border-box}"
    "button{padding:.5rem 1.2rem;margin:.8rem .6rem 0 0;font:inherit}.error{color:#a30000}.note{color:#555}"
)
STYLE_HASH = base64.b64encode(hashlib.sha256(STYLE.encode("utf-8")).digest()).decode("ascii")

T = TypeVar("T")


class ApprovalPage:
    """GET and POST of the approval page, on one listener's resources; remembers wrong-token failures per address."""

    def __init__(self, resources: Resources, owner_token: str) -> None:
        self.resources = resources
        self.owner_token = owner_token
        self.failures: dict[str, Backoff] = {}

    async def _run(self, call: Callable[[], T]) -> T:
        return await anyio.to_thread.run_sync(call)

    async def get(self, request: Request) -> Response:
        handle = request.query_params.get("request", "")
        return await self._show(request, handle, error=None)

    async def _show(self, request: Request, handle: str, *, error: str | None, status: int = 200) -> Response:
        now = int(time.time())
        row = await self._run(lambda: oauth.pending(self.resources, handle, now)) if handle else None
        if row is None:
            return _page(request, "Request expired", _gone(), status=400)
        found = await self._run(lambda: oauth.client(self.resources, row.client_id))
        if found is None:
            return _page(request, "Request expired", _gone(), status=400)
        metadata, _ = found
        redirect_uri = str(_params(row.params)["redirect_uri"])
        app = str(metadata.get("client_name") or "An unnamed app")
        who = None
        if row.identified:
            who = await self._run(lambda: oauth.approver(self.resources, row, self.owner_token, now))
        nonce = await self._run(lambda: oauth.new_nonce(self.resources, handle))
        body = _confirm(app, redirect_uri, who, handle, nonce) if who else _ask(app, redirect_uri, handle, nonce, error)
        response = _page(request, f"Allow {app}?", body, status=status, redirect_uri=redirect_uri)
        response.set_cookie(
            COOKIE,
            nonce,
            max_age=rules.REQUEST_SECONDS,
            path=COOKIE_PATH,
            secure=request.url.scheme == "https",
            httponly=True,
            samesite="strict",
        )
        return response

    async def post(self, request: Request) -> Response:
        headers = {name.lower(): value for name, value in request.headers.items()}
        if check_origin(headers, check_host=False) is not None:
            return _page(request, "Refused", "<p class=error>This form can only be sent from its own page.</p>", 403)
        form = await request.form()
        handle, nonce, action = (_field(form.get(key)) for key in ("request", "nonce", "action"))
        cookie = request.cookies.get(COOKIE, "")
        if not nonce or not hmac.compare_digest(nonce.encode(), cookie.encode()):
            return _page(request, "Refused", _stale(), status=403)
        if not await self._run(lambda: oauth.take_nonce(self.resources, handle, nonce)):
            return _page(request, "Refused", _stale(), status=403)
        now = int(time.time())
        row = await self._run(lambda: oauth.pending(self.resources, handle, now))
        if row is None:
            return _page(request, "Request expired", _gone(), status=400)
        params = _params(row.params)
        redirect_uri, state = str(params["redirect_uri"]), params.get("state")
        state = state if isinstance(state, str) else None
        if action == "deny":
            await self._run(lambda: oauth.deny(self.resources, handle))
            return _redirect(construct_redirect_uri(redirect_uri, error="access_denied", state=state))
        if action == "identify":
            return await self._identify(request, handle, _field(form.get("token")).strip())
        if action == "approve" and row.identified:
            who = await self._run(lambda: oauth.approver(self.resources, row, self.owner_token, now))
            code = None
            if who is not None:
                approver = who
                code = await self._run(lambda: oauth.approve(self.resources, handle, approver, now))
            if code is not None:
                return _redirect(construct_redirect_uri(redirect_uri, code=code, state=state))
        return await self._show(request, handle, error="Enter your token again.", status=400)

    async def _identify(self, request: Request, handle: str, token: str) -> Response:
        address = request.client.host if request.client else ""
        now = time.time()
        wait = self.failures.get(address, Backoff()).wait(now)
        if wait:
            response = _page(request, "Too many attempts", f"<p class=error>Too many wrong tokens from this address: "
                             f"try again in {wait} seconds.</p>", status=429)  # fmt: skip
            response.headers["retry-after"] = str(wait)
            return response
        who = None
        if 0 < len(token) <= TOKEN_FIELD_CHARS:
            seconds = int(now)
            who = await self._run(lambda: oauth.identify(self.resources, handle, token, self.owner_token, seconds))
        if who is None:
            self._failed(address, now)
            return await self._show(request, handle, error="That token is not a valid member token.", status=401)
        self.failures.pop(address, None)
        return await self._show(request, handle, error=None)

    def _failed(self, address: str, now: float) -> None:
        if len(self.failures) >= MAX_TRACKED and address not in self.failures:
            self.failures = {
                key: value.recent(now) for key, value in self.failures.items() if value.recent(now).failures
            }
            if len(self.failures) >= MAX_TRACKED:
                self.failures.pop(next(iter(self.failures)))
        self.failures[address] = self.failures.get(address, Backoff()).failed(now)


def _field(value: object) -> str:
    return value if isinstance(value, str) else ""


def _params(text: str) -> dict[str, object]:
    import json

    found: dict[str, object] = json.loads(text)
    return found


def _redirect(url: str) -> Response:
    return RedirectResponse(url, status_code=303, headers={"cache-control": "no-store"})


def _page(
    request: Request, title: str, body: str, status: int = 200, *, redirect_uri: str | None = None
) -> HTMLResponse:
    targets = "'self'" + (f" {rules.form_action(redirect_uri)}" if redirect_uri else "")
    html = (
        "<!doctype html><html lang=en><head><meta charset=utf-8>"
        "<meta name=viewport content='width=device-width,initial-scale=1'><meta name=referrer content=no-referrer>"
        f"<title>{escape(title)} · MeMesh</title><style>{STYLE}</style></head><body>{body}</body></html>"
    )
    return HTMLResponse(
        html,
        status_code=status,
        headers={
            "cache-control": "no-store",
            "content-security-policy": (
                f"default-src 'none'; style-src 'sha256-{STYLE_HASH}'; form-action {targets}; "
                "frame-ancestors 'none'; base-uri 'none'"
            ),
            "referrer-policy": "no-referrer",
        },
    )


def _hidden(handle: str, nonce: str) -> str:
    return (
        f"<input type=hidden name=request value='{escape(handle, quote=True)}'>"
        f"<input type=hidden name=nonce value='{escape(nonce, quote=True)}'>"
    )


def _about(app: str, redirect_uri: str) -> str:
    return (
        f"<h1>Allow {escape(app)} to use this MeMesh?</h1>"
        f"<dl><dt>App (as it names itself)</dt><dd>{escape(app)}</dd>"
        f"<dt>Sends the approval to</dt><dd>{escape(rules.redirect_host(redirect_uri))}</dd></dl>"
    )


def _ask(app: str, redirect_uri: str, handle: str, nonce: str, error: str | None) -> str:
    problem = f"<p class=error>{escape(error)}</p>" if error else ""
    return (
        f"{_about(app, redirect_uri)}{problem}"
        "<form method=post action='/authorize/approve'>"
        f"{_hidden(handle, nonce)}"
        "<p><label for=token>Your member token (from <code>memesh member add</code>), or the owner's remote "
        "token</label></p>"
        f"<input type=password id=token name=token autocomplete=off required maxlength={TOKEN_FIELD_CHARS}>"
        "<p class=note>The app never sees this token: it receives its own, which acts as you, with your role "
        "and projects, until you or an admin revoke you.</p>"
        "<button type=submit name=action value=identify>Continue</button>"
        "<button type=submit name=action value=deny formnovalidate>Deny</button></form>"
    )


def _confirm(app: str, redirect_uri: str, who: oauth.Approver, handle: str, nonce: str) -> str:
    role = {
        "reader": "read and recall memories",
        "writer": "read, recall, write and forget memories",
        "admin": "do everything, including settings, members and the audit",
    }.get(who.role, who.role)
    projects = "every project" if who.projects is None else ", ".join(who.projects) or "(none)"
    name = f"{who.name} (owner)" if who.owner else who.name
    return (
        f"{_about(app, redirect_uri)}"
        f"<dl><dt>As</dt><dd>{escape(name)}</dd><dt>Role</dt><dd>{escape(who.role)}: may {escape(role)}</dd>"
        f"<dt>Projects</dt><dd>{escape(projects)}</dd></dl>"
        "<form method=post action='/authorize/approve'>"
        f"{_hidden(handle, nonce)}"
        "<button type=submit name=action value=approve>Approve</button>"
        "<button type=submit name=action value=deny>Deny</button></form>"
    )


def _gone() -> str:
    return (
        "<h1>This request has expired</h1><p>An approval stays open for 10 minutes and is used once. Start again "
        "from your app.</p>"
    )


def _stale() -> str:
    return "<p class=error>This form is no longer valid (it was sent already, or from elsewhere). Reload the page.</p>"
