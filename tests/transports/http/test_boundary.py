"""The origin boundary on every /v1 request, and bearer auth on a remote listener."""

from __future__ import annotations

import ipaddress
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memesh.transports.http.app import create_app
from memesh.transports.http.boundary import is_loopback, origin_authority, strip_port

from .conftest import TOKEN, Api

AUTH = {"Authorization": f"Bearer {TOKEN}"}


@pytest.mark.parametrize("site", ["cross-site", "same-site", "anything-else"])
def test_a_cross_site_browser_request_is_refused(api: Api, site: str) -> None:
    body = api.fails("GET", "/v1/health", 403, "auth.cross-origin", headers={"Sec-Fetch-Site": site})
    assert body["error"] == "Cross-site requests are not accepted by the MeMesh API."
    assert "hint" in body


@pytest.mark.parametrize("site", ["same-origin", "none"])
def test_a_same_origin_or_typed_url_request_passes(api: Api, site: str) -> None:
    api.ok("GET", "/v1/health", headers={"Sec-Fetch-Site": site})


def test_sec_fetch_site_wins_over_a_mismatched_origin(api: Api) -> None:
    api.ok("GET", "/v1/health", headers={"Sec-Fetch-Site": "same-origin", "Origin": "http://evil.example"})


def test_an_origin_from_another_site_is_refused(api: Api) -> None:
    api.fails("POST", "/v1/remember", 403, "auth.cross-origin", headers={"Origin": "http://evil.example"}, json={})


def test_an_origin_on_another_port_is_refused(api: Api) -> None:
    api.fails("GET", "/v1/health", 403, "auth.cross-origin", headers={"Origin": "http://127.0.0.1:9999"})


def test_an_origin_matching_the_host_passes(api: Api) -> None:
    api.ok("GET", "/v1/health", headers={"Origin": "http://127.0.0.1:3737"})


def test_an_origin_on_the_default_port_matches_a_host_without_one(db_file: Path) -> None:
    app = create_app(db_path=db_file)
    api = Api(app, base_url="http://localhost")
    try:
        api.ok("GET", "/v1/entities?limit=1", headers={"Origin": "http://localhost:80"})
    finally:
        app.close()


def test_the_null_origin_matches_no_host_and_is_refused(api: Api) -> None:
    api.fails("GET", "/v1/health", 403, "auth.cross-origin", headers={"Origin": "null"})


def test_an_empty_host_is_taken_as_none_sent(api: Api) -> None:
    api.ok("GET", "/v1/health", headers={"Host": ""})


@pytest.mark.parametrize("origin", ["not a url", "http://", "http://127.0.0.1:notaport"])
def test_an_unparseable_origin_is_refused(api: Api, origin: str) -> None:
    api.fails("GET", "/v1/health", 403, "auth.cross-origin", headers={"Origin": origin})


@pytest.mark.parametrize("host", ["evil.example", "evil.example:3737", "127.evil.example", "10.0.0.5:3737"])
def test_a_non_loopback_host_is_refused_on_a_loopback_listener(api: Api, host: str) -> None:
    body = api.fails("GET", "/v1/health", 403, "auth.cross-origin", headers={"Host": host})
    assert body["error"] == f'Request arrived with Host "{host}", which is not a loopback name.'
    assert "loopback" in body["hint"]


@pytest.mark.parametrize("host", ["127.0.0.1:3737", "localhost:3737", "LOCALHOST", "[::1]:3737", "127.1.2.3"])
def test_a_loopback_host_passes(api: Api, host: str) -> None:
    api.ok("GET", "/v1/health", headers={"Host": host})


def test_the_boundary_runs_before_the_body_is_read(api: Api) -> None:
    oversize = b" " * (2 * 1024 * 1024)
    headers = {"Sec-Fetch-Site": "cross-site", "Content-Type": "application/json"}
    api.fails("POST", "/v1/remember", 403, "auth.cross-origin", content=oversize, headers=headers)


def test_paths_outside_v1_are_not_guarded(api: Api) -> None:
    api.fails("GET", "/nothing-here", 404, "route.not-found", headers={"Host": "evil.example"})
    assert api.get("/", headers={"Host": "evil.example"}).status_code == 307  # the way to /dashboard, unguarded too


def test_a_remote_listener_requires_a_bearer_token(remote_api: Api) -> None:
    body = remote_api.fails("GET", "/v1/health", 401, "auth.missing-bearer")
    assert body["error"] == "Missing Authorization: Bearer <token>"


@pytest.mark.parametrize("value", ["", "   ", "Bearer", "Bearer    ", f"Basic {TOKEN}", TOKEN])
def test_a_malformed_authorization_is_a_missing_bearer(remote_api: Api, value: str) -> None:
    remote_api.fails("GET", "/v1/health", 401, "auth.missing-bearer", headers={"Authorization": value})


def test_a_wrong_token_is_invalid(remote_api: Api) -> None:
    headers = {"Authorization": "Bearer wrong-token-0123456789"}
    body = remote_api.fails("GET", "/v1/health", 401, "auth.invalid-token", headers=headers)
    assert body["error"] == "Invalid bearer token"


@pytest.mark.parametrize("value", [f"Bearer {TOKEN}", f"bearer {TOKEN}", f"  BEARER\t{TOKEN}  "])
def test_the_right_token_passes_whatever_the_scheme_case(remote_api: Api, value: str) -> None:
    remote_api.ok("GET", "/v1/health", headers={"Authorization": value})


def test_a_remote_listener_does_not_check_the_host(remote_api: Api) -> None:
    remote_api.ok("GET", "/v1/health", headers={**AUTH, "Host": "memesh.example:3737"})


def test_a_remote_listener_still_refuses_cross_site_before_auth(remote_api: Api) -> None:
    remote_api.fails("GET", "/v1/health", 403, "auth.cross-origin", headers={"Sec-Fetch-Site": "cross-site"})


def test_a_remote_listener_without_a_token_is_not_configured(db_file: Path) -> None:
    app = create_app(remote=True, token=None, db_path=db_file)
    try:
        Api(app).fails("GET", "/v1/health", 503, "auth.not-configured", headers=AUTH)
    finally:
        app.close()


def test_a_loopback_listener_never_challenges(api: Api) -> None:
    api.ok("GET", "/v1/health", headers={"Authorization": "Bearer wrong"})


def test_auth_runs_before_the_body_is_read(remote_api: Api) -> None:
    oversize = b" " * (2 * 1024 * 1024)
    remote_api.fails("POST", "/v1/remember", 401, "auth.missing-bearer", content=oversize)


@pytest.mark.parametrize(
    ("host", "bare"),
    [("127.0.0.1:3737", "127.0.0.1"), ("[::1]:3737", "[::1]"), ("[::1]", "[::1]"), ("localhost", "localhost")],
)
def test_strip_port_keeps_ipv6_brackets(host: str, bare: str) -> None:
    assert strip_port(host) == bare


@pytest.mark.parametrize(
    ("origin", "authority"),
    [
        ("http://LocalHost:80", "localhost"),
        ("https://127.0.0.1:443", "127.0.0.1"),
        ("http://[::1]:3737", "[::1]:3737"),
        ("https://127.0.0.1:80", "127.0.0.1:80"),
    ],
)
def test_origin_authority_drops_default_ports(origin: str, authority: str) -> None:
    assert origin_authority(origin) == authority


@pytest.mark.parametrize(
    "name", ["localhost", "127.0.0.1", "127.255.0.9", "::1", "[::1]", "::ffff:127.0.0.1", " Localhost "]
)
def test_loopback_names(name: str) -> None:
    assert is_loopback(name)


@pytest.mark.parametrize(
    "name", ["0.0.0.0", "::", "10.0.0.1", "example.com", "127.evil.example", "::ffff:10.0.0.1", ""]
)
def test_non_loopback_names(name: str) -> None:
    assert not is_loopback(name)


@given(st.text())
def test_only_localhost_or_a_loopback_address_counts_as_loopback(name: str) -> None:
    if is_loopback(name):
        bare = name.strip().lower().removeprefix("[").removesuffix("]")
        if bare != "localhost":
            assert ipaddress.ip_address(bare).is_loopback or bare.startswith("::ffff:127.")
