"""The message tool through dispatch on a real database file, with a fake router where a session is involved."""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass, field, replace
from typing import Any

import pytest

from memesh.context import CallContext
from memesh.errors import ErrorCode
from memesh.store.sqlite import SqliteStore
from memesh.values import NativeOutcome
from tests.conftest import Caller

PROJECT = "demo~" + "0" * 32


@dataclass
class FakeRouter:
    """Answers like the router would: `outcome` for every delivery, the envelopes it was handed kept."""

    outcome: NativeOutcome = field(default_factory=lambda: NativeOutcome("accepted", generation=3))
    cards: list[dict[str, Any]] | None = field(default_factory=list)
    delivered: list[tuple[str, str, str]] = field(default_factory=list)
    push_outcome: NativeOutcome = field(default_factory=lambda: NativeOutcome("none"))
    pushed: list[tuple[str, str, str | None]] = field(default_factory=list)

    def discover(self, project: str, limit: int) -> list[dict[str, Any]] | None:
        return self.cards

    def deliver(
        self, project: str, session_id: str, envelope: str, *, message_id: str = "", delivery_id: str = ""
    ) -> NativeOutcome:
        self.delivered.append((project, session_id, envelope))
        return self.outcome

    def push(
        self,
        project: str,
        principal_id: str,
        intended_session: str | None,
        envelope: str,
        *,
        message_id: str,
        delivery_id: str,
    ) -> NativeOutcome:
        self.pushed.append((project, principal_id, intended_session))
        return self.push_outcome


@pytest.fixture
def router() -> FakeRouter:
    return FakeRouter()


@pytest.fixture
def msg(fresh_db: SqliteStore, ctx: CallContext, router: FakeRouter) -> Caller:
    return Caller(fresh_db, replace(ctx, router=lambda: router, message_quota=lambda: None))


def send(caller: Caller, key: str = "k1", **extra: Any) -> dict[str, Any]:
    return {
        "action": "send",
        "project": PROJECT,
        "sender": "author",
        "recipient": "reviewer",
        "idempotency_key": key,
        "payload": "review ready",
        **extra,
    }


def test_a_handoff_goes_send_poll_fetch_intake_ack_disposition(msg: Caller) -> None:
    sent = msg.ok("message", send(msg))
    assert sent["created"] is True and sent["message_id"].startswith("msg_")
    polled = msg.ok("message", {"action": "poll", "project": PROJECT, "recipient": "reviewer"})
    [event] = polled["events"]
    assert event["message_id"] == sent["message_id"]
    assert "payload" not in event  # routing metadata only
    fetched = msg.ok(
        "message", {"action": "fetch", "project": PROJECT, "recipient": "reviewer", "message_id": sent["message_id"]}
    )
    assert fetched["payload"] == "review ready"
    base = {"project": PROJECT, "recipient": "reviewer", "message_id": sent["message_id"]}
    msg.ok("message", {"action": "intake", **base, "idempotency_key": "i1", "intake_state": "ingested"})
    msg.ok("message", {"action": "ack", **base, "idempotency_key": "a1"})
    msg.ok("message", {"action": "disposition", **base, "idempotency_key": "d1", "disposition": "completed"})
    facts = msg.ok("message", {"action": "receipts", **base})["receipts"]
    assert [(f["kind"], f["state"], f["fact_source"]) for f in facts] == [
        ("intake", "ingested", "receipt"),
        ("ack", None, "receipt"),
        ("disposition", "completed", "workflow"),
    ]


def test_the_next_poll_from_the_cursor_sees_only_newer_events(msg: Caller) -> None:
    msg.ok("message", send(msg, "a"))
    first = msg.ok("message", {"action": "poll", "project": PROJECT, "recipient": "reviewer"})
    again = msg.ok(
        "message", {"action": "poll", "project": PROJECT, "recipient": "reviewer", "cursor": first["next_cursor"]}
    )
    assert again["events"] == [] and again["next_cursor"] == first["next_cursor"]
    second = msg.ok("message", send(msg, "b"))
    later = msg.ok(
        "message", {"action": "poll", "project": PROJECT, "recipient": "reviewer", "cursor": first["next_cursor"]}
    )
    assert [e["message_id"] for e in later["events"]] == [second["message_id"]]


def test_a_cursor_of_another_recipient_or_an_unknown_one_is_refused_naming_cursor(msg: Caller) -> None:
    msg.ok("message", send(msg))
    mine = msg.ok("message", {"action": "poll", "project": PROJECT, "recipient": "reviewer"})["next_cursor"]
    for recipient, cursor in (("other", mine), ("reviewer", "cur_forged")):
        error = msg.fails("message", {"action": "poll", "project": PROJECT, "recipient": recipient, "cursor": cursor})
        assert error.code == ErrorCode.BAD_BODY and error.message.startswith("cursor: ")


def test_an_exact_retry_returns_the_same_ids_and_a_changed_one_is_a_conflict(msg: Caller) -> None:
    first = msg.ok("message", send(msg))
    again = msg.ok("message", send(msg))
    assert (again["message_id"], again["delivery_id"], again["created"]) == (
        first["message_id"],
        first["delivery_id"],
        False,
    )
    error = msg.fails("message", send(msg, payload="something else"))
    assert error.code == ErrorCode.IDEMPOTENCY_CONFLICT
    polled = msg.ok("message", {"action": "poll", "project": PROJECT, "recipient": "reviewer"})
    assert len(polled["events"]) == 1


def test_scope_ids_are_nfc_and_trimmed_on_every_action(msg: Caller) -> None:
    decomposed = unicodedata.normalize("NFD", "revisor-é")
    sent = msg.ok("message", send(msg, recipient=f"  {decomposed} ", project=f" {PROJECT}"))
    assert sent["recipient"] == "revisor-é" and sent["project"] == PROJECT
    fetched = msg.ok(
        "message", {"action": "fetch", "project": PROJECT, "recipient": "revisor-é", "message_id": sent["message_id"]}
    )
    assert fetched["payload"] == "review ready"


@pytest.mark.parametrize("path", ["/root", "C:\\work", "c:/work", "\\\\host\\share"])
@pytest.mark.parametrize("field_name", ["project", "recipient"])
def test_an_absolute_path_as_a_scope_is_refused_naming_the_field(msg: Caller, path: str, field_name: str) -> None:
    error = msg.fails("message", send(msg, **{field_name: path}))
    assert error.code == ErrorCode.BAD_BODY and error.message.startswith(f"{field_name}: ")


def test_a_separator_inside_an_id_is_accepted_and_case_matters(msg: Caller) -> None:
    sent = msg.ok("message", send(msg, recipient="team/reviewer"))
    error = msg.fails(
        "message",
        {"action": "fetch", "project": PROJECT, "recipient": "Team/reviewer", "message_id": sent["message_id"]},
    )
    assert error.code == ErrorCode.NOT_FOUND


def test_another_recipient_never_sees_the_payload(msg: Caller) -> None:
    sent = msg.ok("message", send(msg))
    for action in ("fetch", "receipts"):
        error = msg.fails(
            "message", {"action": action, "project": PROJECT, "recipient": "intruder", "message_id": sent["message_id"]}
        )
        assert error.code == ErrorCode.NOT_FOUND and "review ready" not in error.message


def test_a_payload_over_64_kib_is_refused_and_one_at_the_limit_is_stored(msg: Caller) -> None:
    fits = "x" * (65_536 - 2)  # JSON-encoded with its two quotes: exactly 65,536 bytes
    msg.ok("message", send(msg, "fits", payload=fits))
    error = msg.fails("message", send(msg, "over", payload=fits + "x"))
    assert error.code == ErrorCode.BAD_BODY and error.message.startswith("payload: ")


def test_a_text_payload_must_be_a_string_and_json_may_be_anything(msg: Caller) -> None:
    assert msg.fails("message", send(msg, payload={"a": 1})).message.startswith("payload: ")
    sent = msg.ok("message", send(msg, "j", payload={"kind": "handoff", "n": [1, 2]}, content_type="application/json"))
    fetched = msg.ok(
        "message", {"action": "fetch", "project": PROJECT, "recipient": "reviewer", "message_id": sent["message_id"]}
    )
    assert fetched["payload"] == {"kind": "handoff", "n": [1, 2]}


def test_sender_host_is_the_transports_and_cannot_be_an_argument(msg: Caller) -> None:
    sent = msg.ok("message", send(msg))
    assert sent["sender_host"] == "test-host"
    error = msg.fails("message", send(msg, "h", sender_host="forged"))
    assert error.code == ErrorCode.BAD_BODY and error.message == "sender_host: Unrecognized key"


def test_over_quota_send_fails_atomically(fresh_db: SqliteStore, ctx: CallContext, router: FakeRouter) -> None:
    caller = Caller(fresh_db, replace(ctx, router=lambda: router, message_quota=lambda: "20"))
    caller.ok("message", send(caller, "a", payload="0123456789"))  # 12 bytes encoded
    error = caller.fails("message", send(caller, "b", payload="0123456789"))
    assert error.code == ErrorCode.STORAGE_QUOTA_EXCEEDED
    assert fresh_db.payload_bytes_stored() == 12
    polled = caller.ok("message", {"action": "poll", "project": PROJECT, "recipient": "reviewer"})
    assert len(polled["events"]) == 1


def test_a_receipt_retry_is_idempotent_and_a_changed_one_conflicts(msg: Caller) -> None:
    sent = msg.ok("message", send(msg))
    base = {"project": PROJECT, "recipient": "reviewer", "message_id": sent["message_id"], "idempotency_key": "d"}
    first = msg.ok("message", {"action": "disposition", **base, "disposition": "accepted"})
    again = msg.ok("message", {"action": "disposition", **base, "disposition": "accepted"})
    assert again["receipt"] == first["receipt"] and again["created"] is False
    error = msg.fails("message", {"action": "disposition", **base, "disposition": "rejected"})
    assert error.code == ErrorCode.IDEMPOTENCY_CONFLICT


def test_only_the_intended_session_records_intake(msg: Caller) -> None:
    sent = msg.ok("message", send(msg, intended_session="sess-A"))
    base = {"project": PROJECT, "recipient": "reviewer", "message_id": sent["message_id"], "idempotency_key": "i"}
    intake = {"action": "intake", **base, "intake_state": "fetched"}
    assert msg.fails("message", intake).code == ErrorCode.INTENDED_FOR_OTHER_SESSION  # no session (as HTTP)
    other = Caller(msg.store, replace(msg.ctx, caller_session="sess-B"))
    assert other.fails("message", intake).code == ErrorCode.INTENDED_FOR_OTHER_SESSION
    mine = Caller(msg.store, replace(msg.ctx, caller_session="sess-A"))
    assert mine.ok("message", intake)["receipt"]["session_id"] == "sess-A"
    assert other.ok("message", {"action": "ack", **base, "idempotency_key": "a"})["created"] is True  # ack is anyone's


def test_a_session_send_returns_after_host_accept(msg: Caller, router: FakeRouter) -> None:
    sent = msg.ok("message", send(msg, recipient="sess-1", target_kind="session"))
    assert sent["host_accept"]["session_id"] == "sess-1" and sent["host_accept"]["generation"] == 3
    [(project, session, envelope)] = router.delivered
    assert (project, session) == (PROJECT, "sess-1") and '"payload":"review ready"' in envelope
    again = msg.ok("message", send(msg, recipient="sess-1", target_kind="session"))
    assert again["host_accept"] == sent["host_accept"] and len(router.delivered) == 1


def test_a_session_target_is_fetched_only_as_a_session(msg: Caller) -> None:
    sent = msg.ok("message", send(msg, recipient="sess-1", target_kind="session"))
    ask = {"action": "fetch", "project": PROJECT, "recipient": "sess-1", "message_id": sent["message_id"]}
    assert msg.fails("message", ask).code == ErrorCode.NOT_FOUND
    assert msg.ok("message", {**ask, "target_kind": "session"})["payload"] == "review ready"


@pytest.mark.parametrize(
    ("outcome", "code"),
    [
        (NativeOutcome("unavailable", reason="no such session is connected"), ErrorCode.RECIPIENT_UNAVAILABLE),
        (NativeOutcome("unreachable", reason="no router socket"), ErrorCode.ROUTER_UNREACHABLE),
    ],
)
def test_a_failed_session_send_keeps_the_durable_message_for_recovery(
    msg: Caller, router: FakeRouter, outcome: NativeOutcome, code: ErrorCode
) -> None:
    router.outcome = outcome
    error = msg.fails("message", send(msg, recipient="sess-1", target_kind="session"))
    assert error.code == code
    facts = msg.ok(
        "message",
        {"action": "receipts", "project": PROJECT, "recipient": "sess-1", "message_id": error.data["message_id"]},
    )["receipts"]
    assert [f["kind"] for f in facts] == (["host_reject"] if code == ErrorCode.RECIPIENT_UNAVAILABLE else ["dispatch"])


def test_an_envelope_over_16_kib_is_native_message_too_large_and_never_dispatched(
    msg: Caller, router: FakeRouter
) -> None:
    error = msg.fails("message", send(msg, recipient="sess-1", target_kind="session", payload="x" * 20_000))
    assert error.code == ErrorCode.NATIVE_MESSAGE_TOO_LARGE and router.delivered == []
    assert error.data["message_id"].startswith("msg_")


def test_fallback_goes_to_the_refused_sessions_principal(msg: Caller, router: FakeRouter) -> None:
    with msg.store.transaction():
        msg.store.register_session(
            session_id="sess-1",
            principal_id="reviewer",
            host_kind="claude-code",
            project=PROJECT,
            work_summary=None,
            lease_expires_at_ms=0,
            connected_at="2026-11-30T11:00:00.000Z",
        )
    router.outcome = NativeOutcome("unavailable", reason="no such session is connected")
    out = msg.ok("message", send(msg, recipient="sess-1", target_kind="session", fallback_to_principal=True))
    assert out["recipient"] == "reviewer" and out["intended_session"] == "sess-1"
    assert out["fallback"]["session_id"] == "sess-1" and out["fallback"]["intended_session_connected"] is False
    assert "note" in out["fallback"]


def test_fallback_for_a_session_that_never_registered_still_fails(msg: Caller, router: FakeRouter) -> None:
    router.outcome = NativeOutcome("unavailable", reason="no such session is connected")
    error = msg.fails("message", send(msg, recipient="ghost", target_kind="session", fallback_to_principal=True))
    assert error.code == ErrorCode.RECIPIENT_UNAVAILABLE and "never registered" in error.message


def test_discover_reads_the_router_and_fails_plainly_without_one(msg: Caller, router: FakeRouter) -> None:
    router.cards = [{"session_id": "s"}]
    assert msg.ok("message", {"action": "discover", "project": PROJECT})["registrations"] == [{"session_id": "s"}]
    router.cards = None
    assert msg.fails("message", {"action": "discover", "project": PROJECT}).code == ErrorCode.ROUTER_UNREACHABLE


def test_unread_deliveries_counts_until_intake(msg: Caller) -> None:
    sent = msg.ok("message", send(msg))
    msg.ok("message", send(msg, "k2"))
    assert msg.store.unread_deliveries("reviewer", PROJECT) == 2
    assert msg.store.recipient_seen("reviewer", PROJECT) and not msg.store.recipient_seen("reviewr", PROJECT)
    base = {"project": PROJECT, "recipient": "reviewer", "message_id": sent["message_id"]}
    msg.ok("message", {"action": "fetch", **base})
    assert msg.store.unread_deliveries("reviewer", PROJECT) == 2  # fetching alone does not end the reminder
    msg.ok("message", {"action": "intake", **base, "idempotency_key": "i", "intake_state": "fetched"})
    assert msg.store.unread_deliveries("reviewer", PROJECT) == 1


def test_renaming_a_project_carries_its_messages_and_leaves_collisions_in_place(msg: Caller) -> None:
    moved = msg.ok("message", send(msg, "a"))
    msg.ok("message", send(msg, "b"))
    msg.ok("message", send(msg, "b", project="new~" + "9" * 32))  # the same idempotency scope in the destination
    with msg.store.transaction():
        counts = msg.store.rename_message_project(PROJECT, "new~" + "9" * 32)
    assert counts == {"messages_moved": 1, "messages_left_in_place": 1}
    fetched = msg.ok(
        "message",
        {"action": "fetch", "project": "new~" + "9" * 32, "recipient": "reviewer", "message_id": moved["message_id"]},
    )
    assert fetched["project"] == "new~" + "9" * 32


def test_a_message_meant_for_one_session_reminds_only_that_session(msg: Caller) -> None:
    msg.ok("message", send(msg, "for-a", intended_session="sess-A"))
    assert msg.store.unread_deliveries("reviewer", PROJECT) == 0
    assert msg.store.unread_deliveries("reviewer", PROJECT, session="sess-B") == 0
    assert msg.store.unread_deliveries("reviewer", PROJECT, session="sess-A") == 1


# --- principal pushes (the router offers a principal message to one eligible live session) ------------------------


def test_a_new_principal_message_is_offered_to_the_router_once(msg: Caller, router: FakeRouter) -> None:
    router.push_outcome = NativeOutcome("accepted", generation=2, session_id="sess-A")
    sent = msg.ok("message", send(msg, intended_session="sess-A"))
    assert router.pushed == [(PROJECT, "reviewer", "sess-A")]
    assert sent["host_accept"]["session_id"] == "sess-A" and sent["host_accept"]["generation"] == 2
    again = msg.ok("message", send(msg, intended_session="sess-A"))  # an exact retry: not pushed again
    assert router.pushed == [(PROJECT, "reviewer", "sess-A")] and again["host_accept"] == sent["host_accept"]
    facts = msg.ok(
        "message", {"action": "receipts", "project": PROJECT, "recipient": "reviewer", "message_id": sent["message_id"]}
    )["receipts"]
    assert [(f["kind"], f["fact_source"], f["session_id"]) for f in facts] == [("host_accept", "host", "sess-A")]


@pytest.mark.parametrize(
    ("outcome", "facts"),
    [
        (NativeOutcome("none", reason="no eligible live session of that principal"), []),
        (NativeOutcome("unreachable", reason="no router socket"), []),
        (NativeOutcome("unavailable", reason="busy", generation=1, session_id="sess-A"), ["host_reject"]),
    ],
)
def test_a_principal_push_that_does_not_land_never_fails_the_send(
    msg: Caller, router: FakeRouter, outcome: NativeOutcome, facts: list[str]
) -> None:
    router.push_outcome = outcome
    sent = msg.ok("message", send(msg))
    assert sent["created"] is True and "host_accept" not in sent
    recorded = msg.ok(
        "message", {"action": "receipts", "project": PROJECT, "recipient": "reviewer", "message_id": sent["message_id"]}
    )["receipts"]
    assert [f["kind"] for f in recorded] == facts


def test_a_principal_message_too_large_for_the_native_limit_is_stored_and_not_pushed(
    msg: Caller, router: FakeRouter
) -> None:
    sent = msg.ok("message", send(msg, payload="x" * 20_000))
    assert sent["created"] is True and router.pushed == []


def test_the_fallback_message_is_not_offered_back_to_the_session_that_refused_it(
    msg: Caller, router: FakeRouter
) -> None:
    with msg.store.transaction():
        msg.store.register_session(
            session_id="sess-1",
            principal_id="reviewer",
            host_kind="claude-code",
            project=PROJECT,
            work_summary=None,
            lease_expires_at_ms=0,
            connected_at="2026-11-30T11:00:00.000Z",
        )
    router.outcome = NativeOutcome("unavailable", reason="busy")
    msg.ok("message", send(msg, recipient="sess-1", target_kind="session", fallback_to_principal=True))
    assert router.pushed == []
