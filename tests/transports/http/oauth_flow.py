"""What the OAuth tests share: a remote `memesh serve` with members, and the approval page completed by HTTP form
posts as a browser would (cookies kept, the hidden fields read from the page)."""

from __future__ import annotations

import base64
import hashlib
import json
import re
import secrets
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from html import unescape
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlencode, urljoin, urlsplit

import httpx
import pytest

from tests.backends import Backend
from tests.transports.cli.conftest import MEMESH_BIN
from tests.transports.mcp.conftest import WAIT_SECONDS, Launcher, Serving

OWNER = "al@example.com"
REDIRECT = "http://127.0.0.1:9/callback"  # never reached: the tests read the code from the Location header
HIDDEN = re.compile(r"<input type=hidden name=(\w+) value='([^']*)'>")


@dataclass
class Team:
    """A remote listener, the CLI of the machine it runs on, and its database."""

    launcher: Launcher
    server: Serving
    backend: Backend

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.server.port}"

    def memesh(self, *argv: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(MEMESH_BIN), *argv],
            cwd=self.launcher.folder,
            env=self.launcher.env,
            capture_output=True,
            text=True,
            check=False,
        )

    def add(self, name: str, role: str, *projects: str) -> str:
        scope = [flag for project in projects for flag in ("--project", project)]
        done = self.memesh("member", "add", name, "--role", role, *scope, "--json")
        assert done.returncode == 0, done.stderr
        token: str = json.loads(done.stdout)["token"]
        return token

    def http(self, token: str | None = None) -> httpx.Client:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        return httpx.Client(base_url=self.base, headers=headers, timeout=WAIT_SECONDS)

    def rows(self, sql: str) -> list[tuple[Any, ...]]:
        store = self.backend.open(self.launcher.db)
        try:
            return [tuple(row) for row in store.conn.execute(sql).fetchall()]
        finally:
            store.close()

    def execute(self, sql: str) -> None:
        store = self.backend.open(self.launcher.db)
        try:
            with store.transaction():
                store.conn.execute(sql)
        finally:
            store.close()


@pytest.fixture
def team(tmp_path: Path, backend: Backend) -> Iterator[Team]:
    launcher = Launcher(tmp_path, backend)
    launcher.env["MEMESH_AUTHOR"] = OWNER
    server = launcher("--host", "0.0.0.0", "--allow-remote")
    yield Team(launcher, server, backend)
    launcher.close()


def hidden_fields(page: str) -> dict[str, str]:
    return {name: unescape(value) for name, value in HIDDEN.findall(page)}


def pkce() -> tuple[str, str]:
    verifier = secrets.token_urlsafe(48)
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).decode().rstrip("=")
    return verifier, challenge


class Browser:
    """A person's browser on the approval page: follows /authorize to the page, enters a token, approves."""

    def __init__(self, base: str) -> None:
        self.client = httpx.Client(base_url=base, timeout=WAIT_SECONDS, follow_redirects=False)
        self.page = ""

    def open(self, authorization_url: str) -> httpx.Response:
        """GET the authorization URL and, when it sends the browser to the approval page, that page."""
        response = self.client.get(authorization_url)
        if response.status_code == 302 and "/authorize/approve" in response.headers["location"]:
            response = self.client.get(urljoin(authorization_url, response.headers["location"]))
            self.page = response.text
        return response

    def submit(self, action: str, **fields: str) -> httpx.Response:
        form = {**hidden_fields(self.page), "action": action, **fields}
        response = self.client.post("/authorize/approve", data=form)
        if response.headers.get("content-type", "").startswith("text/html"):
            self.page = response.text
        return response

    def approve(self, authorization_url: str, token: str) -> str:
        """The Location the page sends the browser on to after entering `token` and approving."""
        assert self.open(authorization_url).status_code == 200, self.page
        shown = self.submit("identify", token=token)
        assert shown.status_code == 200, shown.text
        done = self.submit("approve")
        assert done.status_code == 303, done.text
        return done.headers["location"]

    def close(self) -> None:
        self.client.close()


def code_from(location: str) -> tuple[str, str | None]:
    query = parse_qs(urlsplit(location).query)
    return query["code"][0], query.get("state", [None])[0]


@dataclass
class Registered:
    client_id: str
    secret: str | None
    redirect: str


def register(
    client: httpx.Client, *, redirect: str = REDIRECT, method: str = "none", name: str = "pytest"
) -> Registered:
    body = {"redirect_uris": [redirect], "client_name": name, "token_endpoint_auth_method": method}
    answer = client.post("/register", json=body)
    assert answer.status_code == 201, answer.text
    info = answer.json()
    return Registered(info["client_id"], info.get("client_secret"), redirect)


def authorization_url(app: Registered, challenge: str, *, method: str = "S256", state: str = "st") -> str:
    query = {
        "response_type": "code",
        "client_id": app.client_id,
        "redirect_uri": app.redirect,
        "code_challenge": challenge,
        "code_challenge_method": method,
        "state": state,
    }
    return f"/authorize?{urlencode(query)}"


def exchange(client: httpx.Client, app: Registered, code: str, verifier: str) -> httpx.Response:
    form = {
        "grant_type": "authorization_code",
        "code": code,
        "redirect_uri": app.redirect,
        "client_id": app.client_id,
        "code_verifier": verifier,
    }
    if app.secret:
        form["client_secret"] = app.secret
    return client.post("/token", data=form)


def approved(team: Team, token: str) -> tuple[Registered, str, str]:
    """A registered client, a code approved by the holder of `token`, and its PKCE verifier."""
    with team.http() as client:
        app = register(client)
    verifier, challenge = pkce()
    browser = Browser(team.base)
    try:
        code, _ = code_from(browser.approve(authorization_url(app, challenge), token))
    finally:
        browser.close()
    return app, code, verifier


def tokens_for(team: Team, member_token: str) -> tuple[Registered, dict[str, Any]]:
    """A client registered, approved by the holder of `member_token`, and its first tokens."""
    app, code, verifier = approved(team, member_token)
    with team.http() as client:
        answer = exchange(client, app, code, verifier)
        assert answer.status_code == 200, answer.text
        return app, answer.json()
