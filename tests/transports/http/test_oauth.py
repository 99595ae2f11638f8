"""OAuth 2.1 for /mcp (issue 32) from outside, by plain HTTP against a real remote `memesh serve`: discovery from the
401, the two metadata documents, registration and its bounds, the approval page's defences, the refusals of the
token endpoint, and the member rules over OAuth tokens."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest

from tests.backends import Backend
from tests.transports.http.oauth_flow import (
    REDIRECT,
    Browser,
    Team,
    approved,
    authorization_url,
    code_from,
    exchange,
    pkce,
    register,
    team,
    tokens_for,
)
from tests.transports.mcp.conftest import ERAS, WAIT_SECONDS, Launcher
from tests.transports.mcp.test_http import connect

__all__ = ["team"]

ALPHA = "alpha~" + "a" * 32
BETA = "beta~" + "b" * 32
INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}},
}
MCP_HEADERS = {"Accept": "application/json, text/event-stream"}


def oauth_error(response: httpx.Response, status: int, error: str) -> None:
    assert (response.status_code, response.json()["error"]) == (status, error), response.text


# -- discovery ----------------------------------------------------------------------------------------------------


@pytest.mark.one_engine("the 401 and the metadata reach no store")
def test_mcp_without_a_token_is_401_naming_the_metadata_that_names_this_server_as_authorization_server(
    team: Team,
) -> None:
    with team.http() as client:
        denied = client.post("/mcp", json=INIT, headers=MCP_HEADERS)
        assert (denied.status_code, denied.json()["errorCode"]) == (401, "auth.missing-bearer")
        assert denied.headers["www-authenticate"] == (
            f'Bearer resource_metadata="{team.base}/.well-known/oauth-protected-resource/mcp"'
        )
        wrong = client.post("/mcp", json=INIT, headers={**MCP_HEADERS, "Authorization": "Bearer nope"})
        assert wrong.headers["www-authenticate"].startswith('Bearer error="invalid_token", resource_metadata=')
        resource = client.get("/.well-known/oauth-protected-resource/mcp").json()
        assert client.get("/.well-known/oauth-protected-resource").json() == resource
        assert resource["resource"] == f"{team.base}/mcp"
        assert resource["authorization_servers"] == [team.base]
        server = client.get("/.well-known/oauth-authorization-server").json()
    assert server["issuer"] == team.base
    assert server["registration_endpoint"] == f"{team.base}/register"
    assert server["authorization_endpoint"] == f"{team.base}/authorize"
    assert server["token_endpoint"] == f"{team.base}/token"
    assert server["revocation_endpoint"] == f"{team.base}/revoke"
    assert server["code_challenge_methods_supported"] == ["S256"]
    assert server["grant_types_supported"] == ["authorization_code", "refresh_token"]
    assert "none" in server["token_endpoint_auth_methods_supported"]


@pytest.mark.one_engine("the v1 answer reaches no store")
def test_v1_without_a_token_stays_as_it_was(team: Team) -> None:
    with team.http() as client:
        denied = client.get("/v1/health")
    assert (denied.status_code, denied.json()["errorCode"]) == (401, "auth.missing-bearer")
    assert "www-authenticate" not in denied.headers


@pytest.mark.one_engine("a loopback listener serves no authorization server")
def test_a_loopback_listener_is_unchanged_no_oauth_and_mcp_needs_no_token(tmp_path: Path, backend: Backend) -> None:
    launcher = Launcher(tmp_path, backend)
    try:
        server = launcher()
        with httpx.Client(base_url=f"http://127.0.0.1:{server.port}", timeout=WAIT_SECONDS) as client:
            for path in ("/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-authorization-server"):
                assert client.get(path).status_code == 404
            assert client.post("/register", json={"redirect_uris": [REDIRECT]}).status_code == 404
            assert client.post("/mcp", json=INIT, headers=MCP_HEADERS).status_code == 200
    finally:
        launcher.close()


# -- registration -------------------------------------------------------------------------------------------------


def test_registration_stores_the_client_and_only_the_hash_of_its_secret(team: Team) -> None:
    with team.http() as client:
        app = register(client, method="client_secret_post")
    assert app.secret is not None
    [(client_id, metadata, secret_hash)] = team.rows("SELECT client_id, metadata, secret_hash FROM oauth_clients")
    assert client_id == app.client_id
    assert app.secret not in metadata and app.secret not in secret_hash
    assert json.loads(metadata)["redirect_uris"] == [REDIRECT]


@pytest.mark.one_engine("registration refusals write nothing either engine would differ on")
@pytest.mark.parametrize(
    ("uris", "error"),
    [
        (["http://evil.example/cb"], "invalid_redirect_uri"),  # plain http only to loopback
        (["https://app.example/cb#frag"], "invalid_redirect_uri"),
        (["javascript:alert(1)"], "invalid_redirect_uri"),
        ([f"https://app.example/{n}" for n in range(11)], "invalid_client_metadata"),
    ],
)
def test_registration_refuses_redirect_uris_out_of_bounds(team: Team, uris: list[str], error: str) -> None:
    with team.http() as client:
        answer = client.post("/register", json={"redirect_uris": uris, "token_endpoint_auth_method": "none"})
    assert (answer.status_code, answer.json()["error"]) == (400, error), answer.text
    assert team.rows("SELECT count(*) FROM oauth_clients") == [(0,)]


@pytest.mark.one_engine("a body too large never reaches the store")
def test_registration_refuses_a_body_over_16_kib(team: Team) -> None:
    with team.http() as client:
        big = {"redirect_uris": [REDIRECT], "client_name": "x" * 20_000}
        assert client.post("/register", json=big).status_code == 413
    assert team.rows("SELECT count(*) FROM oauth_clients") == [(0,)]


def test_registration_accepts_an_https_web_client_and_an_app_scheme(team: Team) -> None:
    with team.http() as client:
        register(client, redirect="https://claude.ai/api/mcp/auth_callback", method="client_secret_post")
        register(client, redirect="cursor://anysphere.cursor-retrieval/oauth/callback")
    assert team.rows("SELECT count(*) FROM oauth_clients") == [(2,)]


# -- the approval page --------------------------------------------------------------------------------------------


@pytest.mark.one_engine("page framing and cookies are the transport's")
def test_the_approval_page_names_the_app_and_redirect_host_cannot_be_framed_and_sets_a_strict_cookie(
    team: Team,
) -> None:
    with team.http() as client:
        app = register(client, name="Claude Code")
    browser = Browser(team.base)
    try:
        page = browser.open(authorization_url(app, pkce()[1]))
    finally:
        browser.close()
    assert page.status_code == 200
    assert "Claude Code" in page.text and "127.0.0.1:9" in page.text
    assert "<script" not in page.text and "http" not in page.text.split("<body>")[1].replace(REDIRECT, "")
    policy = page.headers["content-security-policy"]
    assert "frame-ancestors 'none'" in policy and "default-src 'none'" in policy
    assert "form-action 'self' http://127.0.0.1:9" in policy
    assert page.headers["x-frame-options"] == "DENY"
    cookie = page.headers["set-cookie"].lower()
    assert "httponly" in cookie and "samesite=strict" in cookie and "path=/authorize" in cookie


def test_entering_the_token_shows_the_members_role_and_projects_before_approval(team: Team) -> None:
    dana = team.add("dana", "reader", ALPHA)
    with team.http() as client:
        app = register(client)
    browser = Browser(team.base)
    try:
        browser.open(authorization_url(app, pkce()[1]))
        shown = browser.submit("identify", token=dana)
    finally:
        browser.close()
    assert shown.status_code == 200
    assert "dana" in shown.text and "reader" in shown.text and ALPHA in shown.text
    assert "value=approve" in shown.text
    assert team.rows("SELECT count(*) FROM oauth_requests WHERE code_hash IS NOT NULL") == [(0,)]


def test_a_post_without_the_pages_cookie_or_with_a_used_nonce_is_refused(team: Team) -> None:
    bea = team.add("bea", "writer")
    with team.http() as client:
        app = register(client)
    browser = Browser(team.base)
    try:
        browser.open(authorization_url(app, pkce()[1]))
        fields = {**dict(_hidden(browser.page)), "action": "identify", "token": bea}
        with httpx.Client(base_url=team.base, timeout=WAIT_SECONDS) as forger:  # another site's form: no cookie
            assert forger.post("/authorize/approve", data=fields).status_code == 403
        cross = browser.client.post("/authorize/approve", data=fields, headers={"Sec-Fetch-Site": "cross-site"})
        assert cross.status_code == 403
        assert browser.client.post("/authorize/approve", data=fields).status_code == 200
        assert browser.client.post("/authorize/approve", data=fields).status_code == 403  # the nonce was used
    finally:
        browser.close()
    assert team.rows("SELECT count(*) FROM oauth_requests WHERE code_hash IS NOT NULL") == [(0,)]


def _hidden(page: str) -> list[tuple[str, str]]:
    from tests.transports.http.oauth_flow import hidden_fields

    return list(hidden_fields(page).items())


@pytest.mark.one_engine("the backoff is the listener's memory")
def test_after_five_wrong_tokens_an_address_must_wait(team: Team) -> None:
    bea = team.add("bea", "writer")
    with team.http() as client:
        app = register(client)
    browser = Browser(team.base)
    try:
        browser.open(authorization_url(app, pkce()[1]))
        for _ in range(5):
            assert browser.submit("identify", token="mm_wrong").status_code == 401
        waited = browser.submit("identify", token=bea)
        assert waited.status_code == 429 and int(waited.headers["retry-after"]) > 0
    finally:
        browser.close()


def test_deny_sends_access_denied_back_and_forgets_the_request(team: Team) -> None:
    with team.http() as client:
        app = register(client)
    browser = Browser(team.base)
    try:
        browser.open(authorization_url(app, pkce()[1], state="s1"))
        denied = browser.submit("deny")
    finally:
        browser.close()
    assert denied.status_code == 303
    assert denied.headers["location"] == f"{REDIRECT}?error=access_denied&state=s1"
    assert team.rows("SELECT count(*) FROM oauth_requests") == [(0,)]


# -- /authorize and /token refusals -------------------------------------------------------------------------------


def test_plain_pkce_is_refused(team: Team) -> None:
    with team.http() as client:
        app = register(client)
        verifier, _ = pkce()
        answer = client.get(authorization_url(app, verifier, method="plain"))
    assert answer.status_code == 302
    assert answer.headers["location"].startswith(f"{REDIRECT}?error=invalid_request")
    assert team.rows("SELECT count(*) FROM oauth_requests") == [(0,)]


def test_a_foreign_redirect_uri_or_an_unknown_client_is_refused_without_redirecting(team: Team) -> None:
    with team.http() as client:
        app = register(client)
        foreign = authorization_url(app, pkce()[1]).replace("127.0.0.1%3A9", "evil.example")
        refused = client.get(foreign)
        oauth_error(refused, 400, "invalid_request")
        unknown = authorization_url(app, pkce()[1]).replace(app.client_id, "no-such-client")
        oauth_error(client.get(unknown), 400, "invalid_request")
    assert team.rows("SELECT count(*) FROM oauth_requests") == [(0,)]


def test_a_wrong_verifier_a_reused_code_and_an_expired_code_are_invalid_grant(team: Team) -> None:
    bea = team.add("bea", "writer")
    app, code, verifier = approved(team, bea)
    with team.http() as client:
        oauth_error(exchange(client, app, code, verifier + "x"), 400, "invalid_grant")
        first = exchange(client, app, code, verifier)
        assert first.status_code == 200, first.text
        oauth_error(exchange(client, app, code, verifier), 400, "invalid_grant")
        issued = first.json()["access_token"]
        with team.http(issued) as holder:  # a code used twice revokes what its first exchange issued
            assert holder.post("/mcp", json=INIT, headers=MCP_HEADERS).status_code == 401

        app2, code2, verifier2 = approved(team, bea)
        team.execute("UPDATE oauth_requests SET expires_at = 1 WHERE code_hash IS NOT NULL AND used_at IS NULL")
        oauth_error(exchange(client, app2, code2, verifier2), 400, "invalid_grant")


def test_a_bad_client_is_invalid_client_at_the_token_endpoint(team: Team) -> None:
    bea = team.add("bea", "writer")
    with team.http() as client:
        confidential = register(client, method="client_secret_post")
    verifier, challenge = pkce()
    browser = Browser(team.base)
    try:
        code, _ = code_from(browser.approve(authorization_url(confidential, challenge), bea))
    finally:
        browser.close()
    with team.http() as client:
        wrong = type(confidential)(confidential.client_id, "not-the-secret", confidential.redirect)
        oauth_error(exchange(client, wrong, code, verifier), 401, "invalid_client")
        stranger = type(confidential)("no-such-client", None, confidential.redirect)
        oauth_error(exchange(client, stranger, code, verifier), 401, "invalid_client")
        good = exchange(client, confidential, code, verifier)
        assert good.status_code == 200, good.text
        oauth_error(client.post("/token", data={"grant_type": "password", "client_id": confidential.client_id,
                                                "client_secret": confidential.secret or ""}),
                    400, "invalid_request")  # fmt: skip


def test_a_refresh_token_presented_again_after_rotation_revokes_the_whole_grant(team: Team) -> None:
    bea = team.add("bea", "writer")
    app, first = tokens_for(team, bea)
    form = {"grant_type": "refresh_token", "refresh_token": first["refresh_token"], "client_id": app.client_id}
    with team.http() as client:
        second = client.post("/token", data=form)
        assert second.status_code == 200, second.text
        oauth_error(client.post("/token", data=form), 400, "invalid_grant")
        with team.http(second.json()["access_token"]) as holder:
            assert holder.post("/mcp", json=INIT, headers=MCP_HEADERS).status_code == 401
        renewed = {**form, "refresh_token": second.json()["refresh_token"]}
        oauth_error(client.post("/token", data=renewed), 400, "invalid_grant")


def test_revoke_ends_the_grant(team: Team) -> None:
    bea = team.add("bea", "writer")
    app, issued = tokens_for(team, bea)
    with team.http() as client:
        done = client.post("/revoke", data={"token": issued["refresh_token"], "client_id": app.client_id})
        assert done.status_code == 200
    with team.http(issued["access_token"]) as holder:
        assert holder.post("/mcp", json=INIT, headers=MCP_HEADERS).status_code == 401


# -- member rules over OAuth tokens -------------------------------------------------------------------------------


@pytest.mark.anyio
async def test_member_rules_hold_over_oauth_tokens(team: Team) -> None:
    carl, dana, bea = team.add("carl", "reader"), team.add("dana", "writer", ALPHA), team.add("bea", "writer")
    with team.http(team.server.token()) as owner:
        owner.post("/v1/remember", json={"name": "beta-plan", "type": "note", "observations": ["plan"],
                                         "tags": [f"project:{BETA}"], "namespace": "team"})  # fmt: skip
    reader = tokens_for(team, carl)[1]["access_token"]
    scoped = tokens_for(team, dana)[1]["access_token"]
    writer = tokens_for(team, bea)[1]["access_token"]
    for era in ERAS:
        async with connect(f"{team.base}/mcp", era, headers={"Authorization": f"Bearer {reader}"}) as mcp:
            await mcp.fails("remember", {"name": f"carl-{era}", "type": "note", "observations": ["x"]})
            assert [e["name"] for e in (await mcp.ok("recall", {"query": "plan"}))["entities"]] == ["beta-plan"]
        async with connect(f"{team.base}/mcp", era, headers={"Authorization": f"Bearer {scoped}"}) as mcp:
            assert (await mcp.ok("recall", {"query": "plan"}))["entities"] == []
            await mcp.fails("remember", {"name": f"dana-{era}", "type": "note", "observations": ["x"],
                                         "tags": [f"project:{BETA}"]})  # fmt: skip
    assert team.rows("SELECT name FROM entities WHERE name LIKE 'carl-%' OR name LIKE 'dana-%'") == []
    with team.http(writer) as holder:
        assert holder.get("/v1/health").status_code == 401  # an OAuth token is for /mcp only
        assert holder.post("/mcp", json=INIT, headers=MCP_HEADERS).status_code == 200
        assert team.memesh("member", "revoke", "bea").returncode == 0
        assert holder.post("/mcp", json=INIT, headers=MCP_HEADERS).status_code == 401


def test_a_revoked_member_cannot_refresh(team: Team) -> None:
    bea = team.add("bea", "writer")
    app, issued = tokens_for(team, bea)
    assert team.memesh("member", "revoke", "bea").returncode == 0
    form = {"grant_type": "refresh_token", "refresh_token": issued["refresh_token"], "client_id": app.client_id}
    with team.http() as client:
        oauth_error(client.post("/token", data=form), 400, "invalid_grant")


def test_an_approval_is_in_the_audit_under_the_member_who_gave_it(team: Team) -> None:
    bea = team.add("bea", "writer")
    tokens_for(team, bea)
    entries = team.memesh("member", "audit", "--actor", "bea", "--json")
    assert entries.returncode == 0, entries.stderr
    [entry] = json.loads(entries.stdout)["entries"]
    assert (entry["action"], entry["target"], entry["detail"]["client_name"]) == ("oauth_approve", "bea", "pytest")


@pytest.mark.one_engine("the refusal is the SDK handler's, before any write")
def test_a_resource_other_than_this_servers_mcp_is_invalid_target(team: Team) -> None:
    with team.http() as client:
        app = register(client)
        elsewhere = authorization_url(app, pkce()[1]) + "&resource=https%3A%2F%2Fother.example%2Fapi"
        answer = client.get(elsewhere)
        ours = client.get(authorization_url(app, pkce()[1]) + f"&resource={team.base}/mcp")
    assert answer.status_code == 302 and "error=invalid_target" in answer.headers["location"]
    assert ours.status_code == 302 and ours.headers["location"].startswith("/authorize/approve?request=")
