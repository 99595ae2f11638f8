"""Delegation records from the orchestrator's side: the name rule, trust and verdict, and the refusals."""

from __future__ import annotations

import hashlib
import json
from typing import Any

from returns.result import Failure, Success

from memesh.context import CallContext
from memesh.core import delegation
from memesh.core.delegation import RecordRequest, record_name
from memesh.errors import ErrorCode
from memesh.ops.delegation import record, verify
from memesh.store.sqlite import SqliteStore
from tests.calls import call
from tests.conftest import TEST_PROJECT

PROMPT = hashlib.sha256(b"write a parser").hexdigest()


def envelope(**fields: Any) -> bytes:
    return json.dumps(
        {
            "ok": True,
            "model": "deepseek-v4",
            "finish_reason": "stop",
            "content": "SECRET OUTPUT",
            "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
            **fields,
        }
    ).encode()


def request(body: bytes, source: str = "deepseek-worker", **kw: Any) -> RecordRequest:
    fields: dict[str, Any] = {"granted_tools": None, "verdict": "unreviewed", "follow_up": None, **kw}
    return RecordRequest(envelope=body, prompt_sha256=PROMPT, source=source, **fields)


def test_a_record_keeps_the_delegation_never_the_prompt_or_output(fresh_db: SqliteStore, ctx: CallContext) -> None:
    body = envelope(task_id="t-1", allowed_tools=["read_file"])
    answer = record(fresh_db, request(body, follow_up="review\nthe tests"), ctx=ctx).unwrap()
    assert answer["stored"] is True and answer["trust"] == "untrusted-until-verified"
    folded = hashlib.sha256(b"deepseek-worker\x00" + body).hexdigest()[:8]
    assert answer["name"] == f"delegation-{PROMPT[:12]}-{folded}"
    entity = fresh_db.find(answer["name"])
    assert entity is not None and entity.type == "delegation"
    assert sorted(entity.tags) == sorted(["source:deepseek-worker", f"project:{TEST_PROJECT}"])
    provenance = entity.metadata["provenance"]
    assert provenance["source"] == "deepseek-worker" and provenance["trust"] == "untrusted-until-verified"
    assert provenance["envelope_sha256"] == hashlib.sha256(body).hexdigest()
    assert (provenance["mode"], provenance["model"], provenance["allowed_tools"]) == (
        "harness",
        "deepseek-v4",
        ["read_file"],
    )
    assert provenance["usage"] == {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}
    assert entity.metadata["trust"] == "untrusted"
    text = json.dumps([entity.observations, entity.metadata])
    assert "SECRET OUTPUT" not in text and "write a parser" not in text
    assert "Follow-up: review the tests" in entity.observations


def test_allowed_tools_come_from_the_flags_else_the_envelope_else_not_reported(
    fresh_db: SqliteStore, ctx: CallContext
) -> None:
    granted = record(fresh_db, request(envelope(allowed_tools=["a", "b"]), granted_tools=("a",)), ctx=ctx).unwrap()
    entity = fresh_db.find(granted["name"])
    assert entity is not None
    assert entity.metadata["provenance"]["allowed_tools"] == ["a"]
    assert entity.metadata["provenance"]["envelope_allowed_tools"] == ["a", "b"]
    assert any(line.startswith("Allowed tools mismatch") for line in entity.observations)
    unreported = record(fresh_db, request(envelope(), source="other"), ctx=ctx).unwrap()
    entity = fresh_db.find(unreported["name"])
    assert entity is not None and entity.metadata["provenance"]["allowed_tools"] == "not reported"
    assert "Allowed tools: not reported" in entity.observations
    assert entity.metadata["provenance"]["mode"] == "direct"


def test_the_same_envelope_again_writes_nothing_and_reports_the_stored_verdict(
    fresh_db: SqliteStore, ctx: CallContext
) -> None:
    body = envelope()
    first = record(fresh_db, request(body, verdict="accepted"), ctx=ctx).unwrap()
    again = record(fresh_db, request(body), ctx=ctx).unwrap()
    assert (again["stored"], again["verdict"], again["trust"]) == (False, "accepted", "verified")
    other = record(fresh_db, request(body, source="claude-subagent"), ctx=ctx).unwrap()
    assert other["stored"] is True and other["name"] != first["name"]


def test_verify_changes_verdict_and_trust_in_place_and_adds_the_verdict_as_a_line(
    fresh_db: SqliteStore, ctx: CallContext
) -> None:
    name = record(fresh_db, request(envelope()), ctx=ctx).unwrap()["name"]
    before = fresh_db.find(name)
    answer = verify(fresh_db, name, "accepted", "tests pass", ctx=ctx).unwrap()
    assert answer == {"name": name, "previousVerdict": "unreviewed", "verdict": "accepted", "trust": "verified"}
    after = fresh_db.find(name)
    assert before is not None and after is not None
    assert after.metadata["trust"] == "trusted" and after.metadata["provenance"]["verdict"] == "accepted"
    assert {k: v for k, v in after.metadata["provenance"].items() if k not in ("trust", "verdict", "verified_at")} == {
        k: v for k, v in before.metadata["provenance"].items() if k not in ("trust", "verdict", "verified_at")
    }
    assert after.observations[-1].endswith("Note: tests pass")
    verify(fresh_db, name, "rejected", None, ctx=ctx).unwrap()
    rejected = fresh_db.find(name)
    assert rejected is not None and rejected.metadata["trust"] == "untrusted"
    assert rejected.metadata["provenance"]["trust"] == "rejected"


def test_verify_refuses_a_missing_name_and_a_memory_that_is_not_a_record(
    fresh_db: SqliteStore, ctx: CallContext
) -> None:
    assert verify(fresh_db, "nope", "accepted", None, ctx=ctx).failure().code == ErrorCode.NOT_FOUND
    call("remember", fresh_db, {"name": "plain", "type": "delegation", "observations": ["x"]}, ctx).unwrap()
    assert verify(fresh_db, "plain", "accepted", None, ctx=ctx).failure().code == ErrorCode.OPERATION_FAILED


def test_bad_envelopes_and_sources_are_refused_and_store_nothing(fresh_db: SqliteStore, ctx: CallContext) -> None:
    cases = [
        (request(b"not json"), ErrorCode.BAD_BODY),
        (request(b"[1]"), ErrorCode.BAD_BODY),
        (request(b'{"model": "x"}'), ErrorCode.BAD_BODY),
        (request(b'{"ok": "yes"}'), ErrorCode.BAD_BODY),
        (request(b'{"ok": true, "allowed_tools": "all"}'), ErrorCode.BAD_BODY),
        (request(b"\xff\xfe"), ErrorCode.BAD_BODY),
        (request(b'{"ok": true, "pad": "' + b"x" * (4 * 1024 * 1024) + b'"}'), ErrorCode.PAYLOAD_TOO_LARGE),
        (request(envelope(), source=""), ErrorCode.BAD_BODY),
        (request(envelope(), source="has space"), ErrorCode.BAD_BODY),
        (request(envelope(), source="x" * 65), ErrorCode.BAD_BODY),
    ]
    for bad, code in cases:
        match record(fresh_db, bad, ctx=ctx):
            case Failure(error):
                assert error.code == code, bad.source
            case Success(answer):
                raise AssertionError(answer)
    assert fresh_db.count() == 0


def test_the_name_rule_folds_the_source_into_the_second_segment() -> None:
    assert record_name(PROMPT, "a", b"{}") != record_name(PROMPT, "b", b"{}")
    assert record_name(PROMPT, "a", b"{}").startswith(f"delegation-{PROMPT[:12]}-")
    assert delegation.trust_for("unreviewed") == "untrusted-until-verified"
