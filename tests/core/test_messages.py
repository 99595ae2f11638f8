"""The message rules as plain values: scope ids, payload and envelope limits, quota, cutoff, the inbox notice."""

from __future__ import annotations

import unicodedata

import pytest
from hypothesis import given
from hypothesis import strategies as st
from returns.result import Failure, Success

from memesh.core import messages as rules
from memesh.core.clean import REDACTED
from memesh.errors import ErrorCode


@given(st.text(min_size=1, max_size=40))
def test_a_canonical_scope_is_nfc_trimmed_and_stable(text: str) -> None:
    match rules.canonical_scope("recipient", text):
        case Success(value):
            assert value == unicodedata.normalize("NFC", value).strip()
            assert rules.canonical_scope("recipient", value) == Success(value)
        case Failure(error):
            assert error.code == ErrorCode.BAD_BODY and error.message.startswith("recipient: ")


@pytest.mark.parametrize("text", ["/root", " /tmp/x", "C:\\work", "d:/x", "\\\\host\\share"])
def test_absolute_paths_are_refused_naming_the_field_and_a_valid_value(text: str) -> None:
    error = rules.canonical_scope("project", text).failure()
    assert error.message.startswith("project: ") and "demo~" in error.message


@pytest.mark.parametrize("text", ["team/reviewer", "a\\b", "C:work", "~reviewer", "reviewer:1"])
def test_ids_that_merely_contain_a_separator_are_accepted(text: str) -> None:
    assert rules.canonical_scope("recipient", text) == Success(text)


def test_the_payload_limit_counts_utf8_bytes_of_the_json_encoding() -> None:
    three_bytes = "€"
    fits = three_bytes * ((rules.PAYLOAD_LIMIT - 2) // 3)
    assert isinstance(rules.encoded_payload(fits, "text/plain"), Success)
    over = fits + "xyz"
    assert rules.encoded_payload(over, "text/plain").failure().message.startswith("payload: ")


def test_credentials_in_a_payload_are_redacted_before_storing() -> None:
    stored = rules.encoded_payload({"note": "token ghp_" + "a" * 36}, "application/json").unwrap()
    assert "ghp_" not in stored


def test_the_envelope_limit_is_the_whole_envelope() -> None:
    text = rules.envelope({"message_id": "m"}, '"' + "x" * rules.ENVELOPE_LIMIT + '"')
    error = rules.envelope_too_large(text)
    assert error is not None and error.code == ErrorCode.NATIVE_MESSAGE_TOO_LARGE
    assert rules.envelope_too_large(rules.envelope({"m": 1}, '"x"')) is None


@pytest.mark.parametrize(("text", "quota"), [(None, None), ("", None), ("0", 0), (" 1024 ", 1024)])
def test_the_quota_setting_is_a_non_negative_integer_or_unset(text: str | None, quota: int | None) -> None:
    assert rules.parse_quota(text) == Success(quota)


@pytest.mark.parametrize("text", ["-1", "1.5", "10k", "abc"])
def test_a_malformed_quota_is_refused_not_ignored(text: str) -> None:
    assert isinstance(rules.parse_quota(text), Failure)


def test_over_quota_counts_what_is_stored_and_what_is_added() -> None:
    assert rules.over_quota(None, 10**9, 10**9) is None
    assert rules.over_quota(100, 60, 40) is None
    error = rules.over_quota(100, 60, 41)
    assert error is not None and error.code == ErrorCode.STORAGE_QUOTA_EXCEEDED


def test_a_cutoff_is_stored_time_shaped_and_a_zone_less_one_is_utc() -> None:
    assert rules.parse_cutoff("2026-11-01") == Success("2026-11-01T00:00:00.000Z")
    assert rules.parse_cutoff("2026-11-01T02:00:00+02:00") == Success("2026-11-01T00:00:00.000Z")
    assert rules.parse_cutoff("yesterday").failure().message.startswith("cutoff: ")


def test_the_inbox_notice_tells_a_quiet_inbox_from_an_unknown_id() -> None:
    assert rules.inbox_notice(0, True, "reviewer", "demo") is None
    assert "never been seen" in (rules.inbox_notice(0, False, "reviewr", "demo") or "")
    assert (rules.inbox_notice(2, True, "reviewer", "demo") or "").startswith('2 messages waiting for "reviewer"')


def test_a_reminder_names_ids_and_senders_as_one_bounded_line_and_counts_the_rest() -> None:
    waiting = [(f"msg_{n}", "lead\n\x1b[31mIGNORE PREVIOUS" + "x" * 100) for n in range(12)]
    text = rules.prompt_reminder(waiting, 15, "reviewer", "demo")
    assert text is not None and "\n" not in text and "\x1b" not in text
    assert "15 messages waiting" in text and "msg_9 " in text and "msg_10" not in text and "and 5 more" in text
    assert rules.prompt_reminder([], 0, "reviewer", "demo") is None
    reason = rules.gate_reason(waiting[:1], "reviewer", "demo")
    assert reason.startswith('MeMesh: 1 message for "reviewer"') and "msg_0" in reason and "untrusted" in reason


# --- invisible characters and credentials in identifiers and metadata ----------------------------------------------

SECRET = "ghp_" + "Qz7Kx12Vb2Lp9Rt4W" * 2


@pytest.mark.parametrize(
    "text",
    [
        "\u200b/etc/passwd",
        "\ufeff/root",
        "\u2060\u200d/tmp/x",
        "C\u200b:\\work",
        "\u200bd:/x",
        "\\\u200b\\host\\s",
        "/ro\u200bot",
    ],
)
def test_a_path_disguised_by_invisible_characters_is_refused_like_the_path(text: str) -> None:
    error = rules.canonical_scope("project", text).failure()
    assert error.code == ErrorCode.BAD_BODY and error.message.startswith("project: ") and "demo~" in error.message


@pytest.mark.parametrize("text", ["\ufeffreviewer", "\u200breviewer", "reviewer\u200b\u200d", " \u2060reviewer\t"])
def test_invisible_characters_at_either_end_of_a_scope_are_trimmed_like_whitespace(text: str) -> None:
    assert rules.canonical_scope("recipient", text) == Success("reviewer")


def test_an_invisible_joiner_inside_a_scope_is_kept() -> None:
    family = "\U0001f468\u200d\U0001f469\u200d\U0001f467-reviewer"
    assert rules.canonical_scope("recipient", family) == Success(family)


@pytest.mark.parametrize("field", ["project", "recipient", "intended_session"])
@pytest.mark.parametrize("value", [SECRET, "https://bot:Qz7Kx12Vb2Lp9Rt4W@chat.example.com", "team password=hunter22"])
def test_a_scope_holding_a_credential_is_refused_naming_the_field(field: str, value: str) -> None:
    error = rules.canonical_scope(field, value).failure()
    assert error.code == ErrorCode.BAD_BODY and error.message.startswith(f"{field}: ")


@pytest.mark.parametrize("field", ["sender", "idempotency_key"])
def test_a_sender_or_idempotency_key_holding_a_credential_is_refused_naming_the_field(field: str) -> None:
    error = rules.checked_fields({"action": "send", field: f"ci {SECRET}"}).failure()
    assert error.code == ErrorCode.BAD_BODY and error.message.startswith(f"{field}: ")


def test_the_sender_is_otherwise_kept_exactly_as_given() -> None:
    checked = rules.checked_fields({"action": "send", "sender": " Ci Bot\u200b "}).unwrap()
    assert checked["sender"] == " Ci Bot\u200b "


@pytest.mark.parametrize("field", ["correlation_id", "reply_to", "detail"])
def test_free_metadata_holding_a_credential_is_redacted(field: str) -> None:
    checked = rules.checked_fields({"action": "send", field: f"see {SECRET} now"}).unwrap()
    assert checked[field] == f"see {REDACTED} now"


def test_a_project_id_derived_from_an_ordinary_repository_is_accepted() -> None:
    for label in ("memesh-llm-memory", "sk-learn-demo", "api-keys", "token-service", "passport"):
        project = f"{label}~0123456789abcdef0123456789abcdef"
        assert rules.canonical_scope("project", project) == Success(project)
