"""Cleaning of stored text: control characters removed, every credential shape replaced with ***REDACTED***."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memesh.core.clean import REDACTED, clean_key, clean_label, clean_name, clean_text, redact, strip_controls
from memesh.core.storable import storable

# One example of each credential shape the spec lists, and the part of it that must never survive cleaning.
SECRETS = {
    "openai": "sk-proj-Abc123Def456Ghi789Jkl012",
    "anthropic": "sk-ant-api03-AbCdEf0123456789",
    "github-classic": "ghp_" + "a1B2c3D4e5" * 4,
    "github-oauth": "gho_" + "Z9y8X7w6V5" * 4,
    "github-fine-grained": "github_pat_11ABCDEFG0" + "q1w2e3r4t5" * 3,
    "aws-access-key": "AKIAIOSFODNN7EXAMPLE",
    "slack-bot": "xoxb-1234567890-0987654321-AbCdEfGhIj",
    "google-api": "AIza" + "SyD-9tSrke72PouQMnMX7" + "a1b2c3d4e5f6g7",
    "jwt": "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dBjftJeZ4CVPmB92K27uhbUJU1p1r_wW1gFWFOEjXk",
    "bearer": "Bearer abcdefghijklmnopqrstuvwxyz0123",
    "pem": "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo\n-----END RSA PRIVATE KEY-----",
    "password-assignment": "password=hunter2hunter2",
    "token-assignment": "token=0123456789abcdef",
    "short-password-assignment": "password=hunter2",
    "environment-password": "PGPASSWORD=s3cr3tPassw0rd",
    "prefixed-environment-key": "AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMIK7MDENGbPxRfiCYEXAMPLEKEY",
    "yaml-password": "password: hunter2hunter2",
    "json-api-key": '"api_key": "abc123xyz789qwe"',
    "basic-auth-header": "Authorization: Basic dXNlcm5hbWU6cGFzc3dvcmQxMjM=",
    "url-userinfo": "https://deploy:Xq7Vb2Lp9Rt4Wz@example.com/repo",
    "redis-password-only": "redis://:Xq7Vb2Lp9Rt4Wz@cache.internal:6379/0",
    "database-url-slash-in-password": "postgres://app:Xq7Vb2/Lp9Rt4Wz@db.internal:5432/prod",
    "pgp-private-key": (
        "-----BEGIN PGP PRIVATE KEY BLOCK-----\n\nlQOYBGXq7Vb2Lp9Rt4WzAQgAxyz0123456789\n"
        "-----END PGP PRIVATE KEY BLOCK-----"
    ),
    "private-key-assignment": "private_key=Xq7Vb2Lp9Rt4Wz",
    "credentials-assignment": "credentials=Xq7Vb2Lp9Rt4Wz",
    "json-escaped-password": '{\\"password\\":\\"Xq7Vb2Lp9Rt4Wz\\"}',
    "zero-width-inside-password": "pass\u200bword=Xq7Vb2Lp9Rt4Wz",
    "soft-hyphen-inside-key": "sk-\u00adproj-Xq7Vb2Lp9Rt4WzAbCd",
    "zero-width-inside-github-token": "ghp_" + "a1B2c3D4e5" * 2 + "\u200b" + "a1B2c3D4e5" * 2,
}

# C0 (but tab and newline), DEL, C1, and the bidi overrides and isolates.
CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


@pytest.mark.parametrize("kind", sorted(SECRETS))
def test_each_credential_shape_is_replaced_with_the_redaction_marker(kind: str) -> None:
    secret = SECRETS[kind]
    cleaned = clean_text(f"before {secret} after")
    assert cleaned.startswith("before ")
    assert cleaned.endswith(" after")
    assert REDACTED in cleaned
    assert secret not in cleaned
    # Nothing long enough to be a usable part of the key survives either.
    for piece in re.findall(r"[A-Za-z0-9_]{12,}", secret):
        assert piece not in cleaned, piece


def test_a_pem_block_cut_off_before_its_end_line_is_redacted_to_the_end() -> None:
    cleaned = clean_text("key:\n-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC")
    assert cleaned == f"key:\n{REDACTED}"


@pytest.mark.parametrize(
    "text",
    [
        "Asked the task-runner to skip the risky step; password policy lives in docs/auth.md.",
        "The password: required for login. Secret: rotation happens weekly.",
        "pwd: /home/someone/project",
        "passwords are hashed with argon2id",
    ],
)
def test_ordinary_prose_is_left_alone(text: str) -> None:
    assert clean_text(text) == text


def test_control_characters_other_than_newline_and_tab_are_removed() -> None:
    assert clean_text("a\x00b\x01c\x07d\x1be\x7ff\tg\nh") == "ab" + "cdef\tg\nh"


def test_a_windows_line_end_is_a_newline_and_a_lone_carriage_return_is_removed() -> None:
    assert strip_controls("a\r\nb\rc") == "a\nbc"


def test_lone_surrogates_become_the_replacement_character() -> None:
    assert clean_text("a\ud800b\udfffc") == "a\ufffdb\ufffdc"


def test_storable_replaces_lone_surrogates_in_every_string_of_a_decoded_value() -> None:
    value = {"name": "x\ud800", "tags": ["\udc00"], "relations": [{"to": "y\udfff"}], "limit": 3}
    assert storable(value) == {"name": "x\ufffd", "tags": ["\ufffd"], "relations": [{"to": "y\ufffd"}], "limit": 3}


def test_url_userinfo_is_redacted_and_the_scheme_and_host_stay_readable() -> None:
    assert clean_text("redis://:pw1234@cache:6379") == f"redis://{REDACTED}@cache:6379"
    assert clean_text("see https://example.com/a@b and mail a@b.c") == "see https://example.com/a@b and mail a@b.c"


@pytest.mark.parametrize(
    "hostile",
    ["\x1b]52;c;aGVsbG8=\x07", "\x1b]0;title\x07", "\x9b2J", "\x9d52;c;x\x9c", "\u202eevil", "\u2066x\u2069"],
)
def test_terminal_control_sequences_lose_every_control_and_bidi_character(hostile: str) -> None:
    cleaned = clean_text(f"a{hostile}b")
    assert not CONTROL.search(cleaned)
    assert clean_label(f"a{hostile}b") == cleaned


def test_zero_width_joiners_in_ordinary_text_are_kept() -> None:
    family = "\U0001f468\u200d\U0001f469\u200d\U0001f467"
    assert clean_text(f"the {family} emoji") == f"the {family} emoji"


def test_names_are_compared_in_nfc() -> None:
    assert clean_name("cafe\u0301") == clean_name("caf\u00e9") == "caf\u00e9"
    assert clean_key(" cafe\u0301\x1b ") == "caf\u00e9"


def test_names_keep_their_text_on_one_line() -> None:
    assert clean_name("  two\r\nlines\tand tab  ") == "two lines and tab"


TEXT = st.lists(
    st.one_of(
        st.text(max_size=30),
        st.characters(min_codepoint=0, max_codepoint=0x20),
        st.characters(min_codepoint=0x7F, max_codepoint=0xAD),
        st.sampled_from(["\u202e", "\u2066", "\u2069", "\u200b", "\u200d", "\ufeff", "\u00ad"]),
        st.sampled_from([*SECRETS.values(), "\r\n", "\x7f", "\ud800", "Bearer ", "password=", "sk-"]),
    ),
    max_size=40,
).map("".join)


@settings(max_examples=300, deadline=None)
@given(TEXT)
def test_cleaning_is_idempotent(text: str) -> None:
    once = clean_text(text)
    assert clean_text(once) == once


@settings(max_examples=300, deadline=None)
@given(TEXT)
def test_cleaning_removes_every_control_character_except_newline_and_tab(text: str) -> None:
    cleaned = clean_text(text)
    assert not CONTROL.search(cleaned)
    assert "\r" not in cleaned
    unix = text.replace("\r\n", "\n").replace("\r", "")
    expected = re.sub("[\ud800-\udfff]", "\ufffd", CONTROL.sub("", unix))
    if redact(expected) == expected:  # nothing secret-shaped: only the controls went, newlines and tabs stay
        assert cleaned == expected


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(sorted(SECRETS.values())), st.text(alphabet=" .,;:()[]<>\n", max_size=3))
def test_a_secret_never_survives_whatever_surrounds_it(secret: str, around: str) -> None:
    assert secret not in redact(f"{around}{secret}{around}")
