"""The message tool through dispatch: credentials kept out of its identifiers and metadata, disguised paths refused."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from memesh.context import CallContext
from memesh.core.clean import REDACTED
from memesh.errors import ErrorCode
from memesh.store.sqlite import SqliteStore
from memesh.values import NativeOutcome
from tests.backends import Backend
from tests.conftest import Caller
from tests.secret_shapes import database_bytes

PROJECT = "demo~" + "0" * 32
MARKER = "Qz7Kx12Vb2Lp9Rt4W"
SECRET = f"ghp_{MARKER}{MARKER}"


class QuietRouter:
    """No live session anywhere: a principal send is stored and offered to nobody."""

    def discover(self, project: str, limit: int) -> list[dict[str, Any]] | None:
        return []

    def deliver(self, project: str, session_id: str, envelope: str, **ids: str) -> NativeOutcome:
        return NativeOutcome("unavailable", reason="no session")

    def push(
        self, project: str, principal_id: str, intended_session: str | None, envelope: str, **ids: str
    ) -> NativeOutcome:
        return NativeOutcome("none")


@pytest.fixture
def msg(fresh_db: SqliteStore, ctx: CallContext) -> Caller:
    return Caller(fresh_db, replace(ctx, router=QuietRouter, message_quota=lambda: None))


def _send(**fields: Any) -> dict[str, Any]:
    return {
        "action": "send",
        "project": PROJECT,
        "sender": "planner",
        "recipient": "reviewer",
        "idempotency_key": "k1",
        "payload": "review ready",
        **fields,
    }


def test_correlation_id_reply_to_and_receipt_detail_are_stored_redacted(
    msg: Caller, fresh_db: SqliteStore, backend: Backend, tmp_path: Path
) -> None:
    sent = msg.ok("message", _send(correlation_id=f"task {SECRET}", reply_to=f"msg_1 token={MARKER}"))
    base = {"project": PROJECT, "recipient": "reviewer", "message_id": sent["message_id"]}
    msg.ok(
        "message",
        {
            "action": "disposition",
            **base,
            "idempotency_key": "d1",
            "disposition": "completed",
            "detail": f"done, used password={MARKER}",
        },
    )
    [event] = msg.ok("message", {"action": "poll", "project": PROJECT, "recipient": "reviewer"})["events"]
    assert event["correlation_id"] == f"task {REDACTED}"
    assert event["reply_to"] == f"msg_1 {REDACTED}"
    receipts = msg.ok("message", {"action": "receipts", **base})["receipts"]
    assert [r["detail"] for r in receipts if r["kind"] == "disposition"] == [f"done, used {REDACTED}"]
    assert MARKER.encode() not in database_bytes(backend.target(tmp_path / "memesh" / "knowledge-graph.db"))


@pytest.mark.parametrize("field", ["project", "recipient", "sender", "idempotency_key"])
def test_an_identifier_holding_a_credential_is_refused_naming_it_and_nothing_is_stored(
    msg: Caller, field: str, backend: Backend, tmp_path: Path
) -> None:
    error = msg.fails("message", _send(**{field: f"x {SECRET}"}))
    assert error.code == ErrorCode.BAD_BODY and error.message.startswith(f"{field}: ")
    assert MARKER.encode() not in database_bytes(backend.target(tmp_path / "memesh" / "knowledge-graph.db"))


@pytest.mark.parametrize("action", ["poll", "fetch", "receipts"])
def test_a_scope_holding_a_credential_is_refused_on_reads_too(msg: Caller, action: str) -> None:
    read = {"action": action, "project": PROJECT, "recipient": SECRET}
    error = msg.fails("message", read if action == "poll" else {**read, "message_id": "msg_x"})
    assert error.code == ErrorCode.BAD_BODY and error.message.startswith("recipient: ")


@pytest.mark.parametrize("project", ["\u200b/etc/passwd", "\ufeff/home/me/repo", "C\u200b:\\work"])
def test_a_project_path_behind_an_invisible_character_is_refused(msg: Caller, project: str) -> None:
    error = msg.fails("message", _send(project=project))
    assert error.code == ErrorCode.BAD_BODY and error.message.startswith("project: ")


def test_a_recipient_with_a_bom_reaches_the_same_inbox_and_briefing_counts_it(msg: Caller) -> None:
    msg.ok("message", _send(recipient="\ufeffreviewer"))
    polled = msg.ok("message", {"action": "poll", "project": PROJECT, "recipient": "reviewer"})
    assert [event["recipient"] for event in polled["events"]] == ["reviewer"]
    briefed = msg.ok("briefing", {"project": PROJECT, "recipient": "\u200breviewer"})
    assert '1 message waiting for "reviewer"' in briefed["text"]
