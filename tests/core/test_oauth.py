"""The OAuth rules as plain values (memesh.core.oauth): which redirect URIs a client may register, the bounds of a
registration, and the approval page's backoff."""

from __future__ import annotations

from urllib.parse import urlsplit

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memesh.core import oauth as rules
from memesh.core.oauth import Backoff


@pytest.mark.parametrize(
    "uri",
    [
        "https://claude.ai/api/mcp/auth_callback",
        "https://chatgpt.com/connector_platform_oauth_redirect",
        "http://localhost:52449/callback",
        "http://127.0.0.1:9/callback",
        "http://[::1]:8080/cb",
        "cursor://anysphere.cursor-retrieval/oauth/callback",
    ],
)
def test_https_loopback_http_and_app_schemes_may_be_registered(uri: str) -> None:
    assert rules.redirect_uri_refusal(uri) is None


@pytest.mark.parametrize(
    "uri",
    [
        "http://evil.example/cb",
        "http://127.evil.example/cb",
        "http://10.0.0.5/cb",
        "https://app.example/cb#fragment",
        "javascript:alert(1)",
        "data:text/html,hi",
        "file:///etc/passwd",
        "/relative/callback",
        "https:///no-host",
        "http://localhost:99999/cb",
        "https://app.example/" + "a" * 2000,
    ],
)
def test_plain_http_elsewhere_fragments_browser_schemes_and_relative_uris_are_refused(uri: str) -> None:
    assert rules.redirect_uri_refusal(uri) is not None


@given(st.text(max_size=300))
def test_any_text_is_judged_without_raising_and_what_is_accepted_is_safe(uri: str) -> None:
    refusal = rules.redirect_uri_refusal(uri)
    if refusal is not None:
        assert isinstance(refusal, str) and refusal
        return
    parts = urlsplit(uri)
    scheme = parts.scheme.lower()
    assert scheme and scheme not in rules.UNSAFE_SCHEMES
    assert "#" not in uri
    if scheme == "http":
        assert parts.hostname is not None and rules.is_loopback_host(parts.hostname)
    if scheme == "https":
        assert parts.hostname


def test_a_registration_needs_one_to_ten_acceptable_redirect_uris() -> None:
    assert rules.registration_refusal([], [])[0] == "invalid_redirect_uri"  # type: ignore[index]
    eleven = [f"https://a.example/{n}" for n in range(11)]
    assert rules.registration_refusal(eleven, [])[0] == "invalid_client_metadata"  # type: ignore[index]
    assert rules.registration_refusal(["http://a.example/"], []) is not None
    assert rules.registration_refusal(["https://a.example/"], ["x" * 2001]) is not None
    assert rules.registration_refusal(["https://a.example/"], ["Claude Code"]) is None


def test_the_forms_target_is_the_redirects_origin_or_its_app_scheme() -> None:
    assert rules.form_action("http://localhost:52449/callback?x=1") == "http://localhost:52449"
    assert rules.form_action("cursor://anysphere.cursor-retrieval/cb") == "cursor:"
    assert rules.redirect_host("https://claude.ai/api/mcp/auth_callback") == "claude.ai"


def test_five_failures_are_free_then_the_wait_doubles_up_to_fifteen_minutes() -> None:
    backoff = Backoff()
    for n in range(rules.FAILURES_ALLOWED - 1):
        backoff = backoff.failed(1000.0 + n)
        assert backoff.wait(1000.0 + n) == 0
    backoff = backoff.failed(1010.0)
    assert backoff.wait(1010.0) == rules.FIRST_WAIT
    assert backoff.wait(1010.0 + rules.FIRST_WAIT) == 0
    backoff = backoff.failed(1100.0)
    assert backoff.wait(1100.0) == rules.FIRST_WAIT * 2
    for n in range(20):
        backoff = backoff.failed(1200.0 + n)
    assert backoff.wait(1219.0) == rules.MAX_WAIT


@given(st.lists(st.floats(min_value=0, max_value=10_000), max_size=30))
def test_the_wait_is_never_negative_nor_longer_than_the_cap_and_failures_age_out(times: list[float]) -> None:
    backoff = Backoff()
    for at in sorted(times):
        backoff = backoff.failed(at)
    now = max(times, default=0.0)
    assert 0 <= backoff.wait(now) <= rules.MAX_WAIT
    assert backoff.wait(now + rules.FAILURE_WINDOW + rules.MAX_WAIT) == 0
