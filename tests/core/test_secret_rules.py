"""The credential formats the cleaner knows: each caught by its own rule, nothing ordinary touched, cleaning stable."""

from __future__ import annotations

import random
import re
import string

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memesh.core import secret_rules
from memesh.core.clean import REDACTED, clean_all, clean_text, redact
from memesh.core.secret_formats import CATALOGUE
from memesh.core.secret_rules import looks_random
from tests.secret_shapes import FORMATS, KEY_LINES

RULES = {rule.name: rule for rule in CATALOGUE.rules}


@pytest.mark.parametrize("kind", sorted(FORMATS))
def test_each_format_is_caught_by_its_own_rule_and_never_survives_cleaning(kind: str) -> None:
    shape = FORMATS[kind]
    rule = RULES[shape.rule]
    assert shape.secret not in rule.apply(shape.text, shape.text.lower())
    assert rule in CATALOGUE.rules_for(shape.text, shape.text.lower())
    cleaned = clean_text(f"before {shape.text} after")
    assert shape.secret not in cleaned
    assert REDACTED in cleaned
    assert cleaned.startswith("before ") and cleaned.endswith(" after")


def test_every_rule_has_a_format_with_a_test() -> None:
    assert set(RULES) - {shape.rule for shape in FORMATS.values()} == set()


# The key words the assignment rules are anchored on: each begins a secret key name that holds a group literal
# (`access` → `access_key`, `access_token`), so the group opens for all of them.
_KEY_NAME_STARTS = {"access", "client", "refresh", "session", "private", "--"}


def test_every_rule_literal_opens_its_group() -> None:
    for group in CATALOGUE.groups:
        for rule in group.rules:
            for literal in set(rule.literals) - _KEY_NAME_STARTS:
                assert group.long_run or any(word in literal for word in group.literals), (rule.name, literal)


@pytest.mark.parametrize(
    ("text", "kept"),
    [
        ("https://hooks.slack.com/services/T0AB12CD3/B0AB1/Qz7Kx12Vb2Lp9Rt4WaBc", "hooks.slack.com/services/"),
        ("git clone https://deploy:Qz7Kx12Vb2Lp9Rt4W@git.example.com/r.git", "@git.example.com/r.git"),
        ("DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=" + "Qz7K/x12+Vb2Lp9Rt4W" * 4, "AccountName=acct"),
        ('{"key": "Qz7Kx12Vb2Lp9Rt4WaBcDeF"}', '{"key": "'),
        ("https://a.blob.core.windows.net/c?sv=2022-11-02&sp=r&sig=Qz7Kx12Vb2Lp9Rt4W%3D", "?sv=2022-11-02&sp=r&sig="),
    ],
)
def test_a_redacted_value_keeps_its_key_host_and_route_readable(text: str, kept: str) -> None:
    assert kept in clean_text(text)


# --- when a value looks random ------------------------------------------------------------------------------------


def _random(alphabet: str, length: int, seed: int) -> str:
    rng = random.Random(seed)
    return "".join(rng.choice(alphabet) for _ in range(length))


@pytest.mark.parametrize(
    ("alphabet", "length"),
    [
        (string.ascii_letters + string.digits, 20),
        (string.ascii_letters + string.digits, 40),
        (string.ascii_letters + string.digits + "+/", 44),
        (string.ascii_letters + string.digits + "-_", 32),
        ("0123456789abcdef", 32),
        ("0123456789abcdef", 64),
        ("0123456789ABCDEF", 40),
        ("abcdefghijklmnopqrstuvwxyz234567", 52),
    ],
)
def test_generated_keys_look_random(alphabet: str, length: int) -> None:
    caught = sum(looks_random(_random(alphabet, length, seed)) for seed in range(200))
    assert caught >= 190, caught


@pytest.mark.parametrize(
    "value",
    [
        "memesh.core.secret_rules",
        "BetaMemoryTool20250818StrReplaceCommand",
        "sqlite3.SQLITE_CANTOPEN",
        "lease_expires_at_ms",
        "user-settings-2024-theme",
        "MEMESH_API_TOKEN_FILE",
        "/home/someone/.ssh/id_ed25519",
        "~/.config/memesh/config.json",
        "https://example.com/docs/getting-started",
        "123e4567-e89b-12d3-a456-426614174000",
        "20261201123000000",
        "xxxxxxxxxxxxxxxxxxxxxxxx",
        "aaaa1111bbbb2222cccc",
        "your-api-key-goes-here",
        "application/vnd.github+json",
    ],
)
def test_names_paths_urls_numbers_uuids_and_placeholders_do_not_look_random(value: str) -> None:
    assert not looks_random(value)


# --- ordinary text survives ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "Decided to keep the API key rotation in the deploy runbook; the token lifetime is 24 hours.",
        "The key insight: SQLite's WAL mode lets readers and the one writer work at once.",
        "Password reset emails now expire after 30 minutes (see docs/auth.md).",
        "3f2a9c1 Fix the parser's handling of a trailing comma\n9b8e7d6 Merge branch 'main' of github.com:me/repo",
        "commit 3f2a9c1b8d7e6f5a4b3c2d1e0f9a8b7c6d5e4f3a\nAuthor: Someone <someone@example.com>",
        "request_id: 123e4567-e89b-12d3-a456-426614174000, idempotency_key: 9f1c2d3e-4b5a-6978-8a9b-0c1d2e3f4a5b",
        "See https://docs.example.com/api/v2/tokens?page=2&limit=50 for the list endpoint.",
        "Moved the file to src/memesh/core/secret_rules.py and tests/core/test_secret_rules.py.",
        "def api_key_for(project: str) -> str | None:\n    return settings.get(project)",
        "const tokenCount = countTokens(prompt); if (tokenCount > maxTokens) truncate(prompt);",
        "primary_key: entity_id\nsort_key: created_at\nkey_prefix: memesh-cache",
        "sha256: e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
        "The image is embedded as data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk",
        "Ran `pytest -k secret --maxfail=1` and `git log --oneline -5`; both passed on the designer's laptop.",
        "Authorization: required for every route except /v1/health.",
        "The patterns in the pass are applied once per signal; the author bypassed the passport check.",
        "token budget: 4096, api version: 2024-06-01, auth mode: oauth, pat expiry: 90 days",
    ],
)
def test_ordinary_prose_and_code_survive_unchanged(text: str) -> None:
    assert clean_text(text) == text


_WORDS = [
    "the",
    "memory",
    "project",
    "recall",
    "index",
    "parser",
    "router",
    "config",
    "deploy",
    "keyboard",
    "design",
    "pattern",
    "author",
    "bypass",
    "signal",
    "capital",
    "passage",
    "tokenizer",
    "api",
    "key",
    "pass",
    "auth",
]


def _identifier(words: list[str], style: str) -> str:
    if style == "snake":
        return "_".join(words)
    if style == "camel":
        return words[0] + "".join(word.title() for word in words[1:])
    return "-".join(words)


_WORD = st.sampled_from(_WORDS)
_IDENTIFIER = st.builds(
    _identifier, st.lists(_WORD, min_size=1, max_size=4), st.sampled_from(["snake", "camel", "kebab"])
)
_PATH = st.builds(
    lambda parts, ext: "/".join(parts) + ext,
    st.lists(_WORD, min_size=1, max_size=5),
    st.sampled_from([".py", ".md", ".json", ""]),
)
_URL = st.builds(
    lambda host, path, page: f"https://{host}.example.com/{path}?page={page}", _WORD, _PATH, st.integers(0, 999)
)
_HEX = st.text(alphabet="0123456789abcdef", min_size=32, max_size=32)
_UUID = _HEX.map(lambda h: f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}")
_GIT_LINE = st.builds(lambda sha, words: f"{sha[:7]} {' '.join(words).capitalize()}", _HEX, st.lists(_WORD, min_size=1))
_NUMBER = st.integers(0, 10**12).map(str)
_ORDINARY = st.lists(
    st.one_of(
        _WORD, _IDENTIFIER, _PATH, _URL, _UUID, _GIT_LINE, _NUMBER, st.sampled_from([" ", ", ", ". ", ": ", "\n"])
    ),
    max_size=30,
).map(" ".join)


@settings(max_examples=300, deadline=None)
@given(_ORDINARY)
def test_ordinary_words_identifiers_paths_urls_uuids_and_git_lines_survive(text: str) -> None:
    assert clean_text(text) == text


_SECRETS = [shape.text for shape in FORMATS.values()]
_MIXED = st.lists(
    st.one_of(_ORDINARY, st.sampled_from(_SECRETS), st.sampled_from([*KEY_LINES, "\u200b", " = ", ": ", "--token "])),
    max_size=12,
)


@settings(max_examples=300, deadline=None)
@given(_MIXED.map("".join))
def test_cleaning_any_mix_of_formats_and_ordinary_text_is_idempotent(text: str) -> None:
    once = clean_text(text)
    assert clean_text(once) == once


@settings(max_examples=200, deadline=None)
@given(_MIXED)
def test_cleaning_a_write_is_idempotent_and_the_same_again_text_by_text(texts: list[str]) -> None:
    once = clean_all(texts)
    assert clean_all(once) == once
    assert [clean_text(text) for text in once] == once


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(sorted(FORMATS)), _ORDINARY, st.sampled_from([" ", "\n", '"', "'", "(", ", ", "`"]))
def test_no_format_survives_whatever_ordinary_text_surrounds_it(kind: str, around: str, quote: str) -> None:
    shape = FORMATS[kind]
    assert shape.secret not in redact(f"{around}{quote}{shape.text}{quote}{around}")


def test_the_gate_finds_a_rule_literal_wherever_it_begins() -> None:
    words = ["ab", "abc", "b", "bd", "xy", "xz", "key", "key-"]
    pattern = re.compile(secret_rules.trie_pattern(words))
    rng = random.Random(7)
    for _ in range(2000):
        text = "".join(rng.choice("abcdekxyz-") for _ in range(10))
        assert (pattern.search(text) is not None) == any(word in text for word in words), text


def test_a_refused_match_does_not_hide_an_assignment_inside_it() -> None:
    # `key` in `keyboard` starts a generic match over `board DB_PASS=…` that its context refuses (prose, not an
    # assignment); the `PASS=` assignment inside that span is still found (hypothesis found this one).
    text = "keyboard DB_PASS=XBVhwvV71aXJhLaBB0fiUhg3 keyboard"
    assert redact(text) == f"keyboard DB_PASS={REDACTED} keyboard"


def test_the_token_alphabet_is_string_modules_letters_and_digits() -> None:
    """secret_rules spells them out so that cleaning text does not import `string` (ADR 0008)."""
    import string

    from memesh.core import secret_rules

    assert string.ascii_letters == secret_rules._ASCII_LETTERS
    assert string.digits == secret_rules._DIGITS


def test_a_signed_url_glued_to_a_bracket_and_an_example_url_is_still_redacted() -> None:
    # Found by the property above: the unquoted value ran on through `(` into text naming "example", which made the
    # whole value read as a placeholder.
    shape = FORMATS["gcs-signed-url"]
    around = "https://the.example.com/the.py?page=0"
    assert shape.secret not in redact(f"{around}({shape.text}({around}")
    assert redact("sig=computeSignature(payload)") == "sig=computeSignature(payload)"
