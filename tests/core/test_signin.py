"""The session cookie's rules (memesh/core/signin.py), with plain values: what a seal binds, when it ends, and that
any other text a browser sends is no one's."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from memesh.core import signin

SECRET = b"k" * 32
NOW = 1_800_000_000
HASH = "a" * 64


def claim(name: str = "bea", expires: int = NOW + 60) -> signin.Claim:
    return signin.Claim(kind=signin.MEMBER if name else signin.OWNER, name=name, expires=expires)


def test_a_seal_is_verified_with_the_same_secret_and_credential_until_it_ends() -> None:
    value = signin.seal(SECRET, claim(), HASH)
    parsed = signin.parse(value)
    assert parsed == claim()
    assert signin.verified(SECRET, value, parsed, HASH, NOW)
    assert not signin.verified(SECRET, value, parsed, HASH, NOW + 60)  # its end
    assert not signin.verified(b"other" * 8, value, parsed, HASH, NOW)  # another server's key
    assert not signin.verified(SECRET, value, parsed, "b" * 64, NOW)  # a new token under the same name


def test_a_seal_names_no_token_and_changes_with_each_field() -> None:
    value = signin.seal(SECRET, claim(), HASH)
    assert HASH not in value and "bea" not in value
    others = {
        signin.seal(SECRET, claim("eve"), HASH),
        signin.seal(SECRET, claim(expires=NOW + 61), HASH),
        signin.seal(SECRET, claim(""), HASH),
    }
    assert value not in others and len(others) == 3


def test_a_name_with_dots_and_non_ascii_survives_the_cookie() -> None:
    who = claim("bea.müller@example.com")
    value = signin.seal(SECRET, who, HASH)
    assert value.isascii() and ";" not in value and " " not in value
    assert signin.parse(value) == who


def test_the_session_ends_after_a_working_day_or_with_the_token() -> None:
    assert signin.expiry(NOW, None) == NOW + signin.SESSION_SECONDS
    assert signin.expiry(NOW, NOW + 5) == NOW + 5


def test_the_csrf_token_belongs_to_one_cookie() -> None:
    value = signin.seal(SECRET, claim(), HASH)
    token = signin.csrf_token(SECRET, value)
    assert signin.csrf_matches(SECRET, value, token)
    assert not signin.csrf_matches(SECRET, value, None)
    assert not signin.csrf_matches(SECRET, signin.seal(SECRET, claim("eve"), HASH), token)


@given(st.text(max_size=200))
def test_any_other_text_is_no_ones_session(text: str) -> None:
    parsed = signin.parse(text)
    if parsed is not None:
        assert not signin.verified(SECRET, text, parsed, HASH, NOW) or text == signin.seal(SECRET, parsed, HASH)
