"""Signing in to the dashboard of a remote listener (issue 32), from outside: `memesh serve --host 0.0.0.0
--allow-remote` as a real process reached on 127.0.0.1, members added with the CLI, the session cookie read off the
wire as a browser gets it, on both engines. The browser itself: tests/transports/dashboard/test_signin.py."""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import ssl
import stat
from contextlib import closing
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.transports.http.test_serve_tls import Server as TlsServer
from tests.transports.http.test_serve_tls import pki, started
from tests.transports.http.test_team_members import ALPHA, BETA, Team, ok, recalled, refused, remember, team
from tests.transports.mcp.conftest import WAIT_SECONDS

__all__ = ["pki", "started", "team"]  # fixtures shared with the members' and the TLS tests

COOKIE = "memesh_session"


def attributes(set_cookie: str) -> dict[str, str]:
    """A Set-Cookie header's attributes by lower-cased name (a flag maps to ""), and its value under `value`."""
    first, *rest = [part.strip() for part in set_cookie.split(";")]
    name, _, value = first.partition("=")
    assert name == COOKIE, set_cookie
    found = {"value": value}
    for part in rest:
        key, _, item = part.partition("=")
        found[key.lower()] = item
    return found


def sign_in(team: Team, token: str) -> tuple[httpx.Client, dict[str, Any], dict[str, str]]:
    """A client that signed in with `token` (it keeps the cookie as a browser does), the answer's data, and the
    cookie's attributes as sent."""
    client = httpx.Client(base_url=f"http://127.0.0.1:{team.server.port}", timeout=WAIT_SECONDS)
    response = client.post("/dashboard/sign-in", json={"token": token})
    data = ok(response)
    return client, data, attributes(response.headers["set-cookie"])


def csrf(data: dict[str, Any]) -> dict[str, str]:
    return {"X-MeMesh-CSRF": data["csrf"]}


def test_signing_in_sets_a_strict_httponly_cookie_that_holds_no_token(team: Team) -> None:
    bea = team.add("bea", "writer")
    client, data, cookie = sign_in(team, bea)
    with closing(client):
        assert data["member"] == {"name": "bea", "role": "writer", "projects": None, "owner": False}
        assert (data["remote"], data["signedIn"]) == (True, True)
        assert "remember" in data["allowed"] and "config_update" not in data["allowed"]
    assert "httponly" in cookie and cookie["samesite"].lower() == "strict" and cookie["path"] == "/"
    assert "secure" not in cookie  # plain HTTP: a Secure cookie would never come back
    assert 0 < int(cookie["max-age"]) <= 12 * 60 * 60
    assert bea not in cookie["value"] and hashlib.sha256(bea.encode()).hexdigest() not in cookie["value"]
    secret = team.launcher.home / ".memesh" / "session-secret"
    assert stat.S_IMODE(secret.stat().st_mode) == 0o600


def test_a_token_that_is_no_ones_signs_no_one_in(team: Team) -> None:
    team.add("bea", "writer")
    with team.http(None) as client:
        response = client.post("/dashboard/sign-in", json={"token": "mm_" + "0" * 64})
        refused(response, 401, "auth.invalid-token")
        assert "set-cookie" not in response.headers
        refused(client.post("/dashboard/sign-in", json={"token": ""}), 400, "validation.bad-body")
        refused(client.post("/dashboard/sign-in", json={"token": "x", "role": "admin"}), 400, "validation.bad-body")


def test_the_cookie_reads_and_a_write_needs_the_sessions_csrf_token(team: Team) -> None:
    bea = team.add("bea", "writer")
    client, data, _ = sign_in(team, bea)
    with closing(client):
        ok(client.get("/v1/health"))
        refused(remember(client, "no-header"), 403, "auth.cross-origin")
        client.headers["X-MeMesh-CSRF"] = "0" * 64
        refused(remember(client, "wrong-header"), 403, "auth.cross-origin")
        client.headers.update(csrf(data))
        ok(remember(client, "from-the-dashboard"))
        entity = ok(client.get("/v1/entities/from-the-dashboard"))
    assert entity["metadata"]["provenance"]["author"] == "bea"
    assert entity["metadata"]["provenance"]["source"] == "remote"
    assert team.rows("SELECT name FROM entities ORDER BY name") == [("from-the-dashboard",)]
    entries = ok(team.http(team.server.token()).get("/v1/audit", params={"actor": "bea"}))["entries"]
    assert [(e["action"], e["target"]) for e in entries] == [("remember", "from-the-dashboard")]


def test_a_cross_site_request_is_refused_even_with_the_cookie(team: Team) -> None:
    bea = team.add("bea", "writer")
    client, data, _ = sign_in(team, bea)
    with closing(client):
        client.headers.update(csrf(data))
        for header in ({"Origin": "https://evil.example"}, {"Sec-Fetch-Site": "cross-site"}):
            refused(client.post("/v1/remember", json={"name": "x", "observations": ["y"]}, headers=header), 403,
                    "auth.cross-origin")  # fmt: skip
            refused(client.post("/dashboard/sign-in", json={"token": bea}, headers=header), 403, "auth.cross-origin")
        # A form a page of another site would post: no JSON, no header, and a browser sends no Strict cookie along.
        form = client.post("/v1/remember", data={"name": "x"}, headers={"X-MeMesh-CSRF": ""})
        refused(form, 403, "auth.cross-origin")
    assert team.rows("SELECT count(*) FROM entities") == [(0,)]


def test_a_revoked_member_is_signed_out_on_the_next_request(team: Team) -> None:
    bea = team.add("bea", "writer")
    client, _, cookie = sign_in(team, bea)
    with closing(client):
        ok(client.get("/v1/health"))
        assert team.memesh("member", "revoke", "bea").returncode == 0
        response = client.get("/v1/health")
        refused(response, 401, "auth.invalid-token")
        assert attributes(response.headers["set-cookie"])["max-age"] == "0"
        assert ok(client.get("/dashboard/session")) == {"remote": True, "signedIn": False}
        # The name given to a new token does not bring the old session back (a browser that kept the cookie).
        team.add("bea", "writer")
        client.cookies.set(COOKIE, cookie["value"])
        refused(client.get("/v1/health"), 401, "auth.invalid-token")


def test_an_altered_cookie_signs_no_one_in(team: Team) -> None:
    bea, eve = team.add("bea", "reader"), team.add("eve", "admin")
    client, _, cookie = sign_in(team, bea)
    with closing(client):
        version, kind, _name, expires, mac = cookie["value"].split(".")
        as_eve = ".".join((version, kind, "ZXZl", expires, mac))  # base64url("eve")
        later = ".".join((version, kind, _name, str(int(expires) + 3600), mac))
        flipped = cookie["value"][:-1] + ("1" if cookie["value"].endswith("0") else "0")  # one in 16 ends in 0
        for forged in (as_eve, later, flipped, "v1.owner..9999999999." + "0" * 64):
            client.cookies.clear()
            client.cookies.set(COOKIE, forged)
            refused(client.get("/v1/audit"), 401, "auth.invalid-token")
    assert eve


def test_sign_out_removes_the_cookie_and_needs_the_csrf_token(team: Team) -> None:
    bea = team.add("bea", "writer")
    client, data, _ = sign_in(team, bea)
    with closing(client):
        refused(client.post("/dashboard/sign-out", json={}), 403, "auth.cross-origin")
        response = client.post("/dashboard/sign-out", json={}, headers=csrf(data))
        assert ok(response) == {"remote": True, "signedIn": False}
        assert attributes(response.headers["set-cookie"])["max-age"] == "0"
        assert ok(client.get("/dashboard/session")) == {"remote": True, "signedIn": False}
        refused(client.get("/v1/health"), 401, "auth.missing-bearer")


def test_the_cookie_does_not_open_mcp(team: Team) -> None:
    bea = team.add("bea", "writer")
    client, data, _ = sign_in(team, bea)
    with closing(client):
        refused(client.post("/mcp", json={}, headers=csrf(data)), 401, "auth.missing-bearer")


def test_a_reader_signed_in_recalls_but_may_not_write(team: Team) -> None:
    bea, carl = team.add("bea", "writer"), team.add("carl", "reader")
    with team.http(bea) as writer:
        ok(remember(writer, "cache-policy"))
    client, data, _ = sign_in(team, carl)
    with closing(client):
        assert "recall" in data["allowed"] and "remember" not in data["allowed"] and "forget" not in data["allowed"]
        client.headers.update(csrf(data))
        assert recalled(client, query="cache") == ["cache-policy"]
        refused(remember(client, "carls-note"), 403, "auth.forbidden")
        refused(client.post("/v1/forget", json={"name": "cache-policy"}), 403, "auth.forbidden")


def test_a_scoped_member_signed_in_sees_and_writes_only_its_project(team: Team) -> None:
    dana = team.add("dana", "writer", ALPHA)
    with team.http(team.server.token()) as owner:
        ok(remember(owner, "alpha-choice", f"project:{ALPHA}"))
        ok(remember(owner, "beta-choice", f"project:{BETA}"))
    client, data, _ = sign_in(team, dana)
    with closing(client):
        assert data["member"]["projects"] == [ALPHA]
        assert "projects" not in data["allowed"] and "graph" not in data["allowed"]
        client.headers.update(csrf(data))
        assert recalled(client, query="choice") == ["alpha-choice"]
        assert [entity["name"] for entity in ok(client.get("/v1/entities"))] == ["alpha-choice"]
        refused(remember(client, "new-beta", f"project:{BETA}"), 403, "auth.forbidden")
        ok(remember(client, "alpha-more", f"project:{ALPHA}"))


def test_the_owners_token_signs_in_as_the_owner(team: Team) -> None:
    client, data, _ = sign_in(team, team.server.token())
    with closing(client):
        assert data["member"]["owner"] is True and data["member"]["role"] == "admin"
        assert "config_update" in data["allowed"]
        ok(client.get("/v1/audit"))
        assert re.fullmatch(r"[0-9a-f]{64}", data["csrf"])


@pytest.mark.one_engine("a loopback listener reads no member")
def test_a_loopback_listener_has_no_sign_in(tmp_path: Path) -> None:
    from tests.transports.http.real_server import real_server

    with real_server(tmp_path) as running, httpx.Client(base_url=running.url, timeout=WAIT_SECONDS) as client:
        assert ok(client.get("/dashboard/session")) == {"remote": False, "signedIn": False}
        refused(client.post("/dashboard/sign-in", json={"token": "whatever"}), 404, "route.not-found")
        ok(client.get("/v1/health"))
    assert not (tmp_path / "home" / ".memesh" / "session-secret").exists()


def test_the_session_answer_matches_its_schema(team: Team) -> None:
    from memesh.schema import files, validation

    bea = team.add("bea", "reader")
    client, data, _ = sign_in(team, bea)
    with closing(client):
        state = ok(client.get("/dashboard/session"))
    schema = files.load("http/session.output")
    assert validation.issues(schema, data) == [] and validation.issues(schema, state) == []
    assert json.dumps(state).count(bea) == 0


@pytest.mark.one_engine("the cookie's attributes over TLS: no member is read")
@pytest.mark.skipif(shutil.which("openssl") is None, reason="needs the openssl CLI")
def test_over_tls_the_cookie_is_secure_too(pki: Path, tmp_path: Path, started: list[TlsServer]) -> None:
    home = tmp_path / "home"
    args = ["--host", "0.0.0.0", "--allow-remote", "--tls-cert", str(pki / "cert.pem"), "--tls-key"]
    server = TlsServer([*args, str(pki / "key.pem")], home)
    started.append(server)
    token = (home / ".memesh" / "remote-token").read_text().strip()
    trusting = ssl.create_default_context(cafile=str(pki / "cert.pem"))
    with httpx.Client(base_url=f"https://127.0.0.1:{server.port}", verify=trusting, timeout=WAIT_SECONDS) as client:
        response = client.post("/dashboard/sign-in", json={"token": token})
        cookie = attributes(response.headers["set-cookie"])
        assert "secure" in cookie and "httponly" in cookie and cookie["samesite"].lower() == "strict"
        data = ok(response)
        ok(client.get("/v1/health"))
        signed_out = client.post("/dashboard/sign-out", json={}, headers=csrf(data))
        assert "secure" in attributes(signed_out.headers["set-cookie"])
