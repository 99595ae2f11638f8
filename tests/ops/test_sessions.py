"""The router's records through the door: registrations (agent_sessions) and the host's answers to deliveries."""

from __future__ import annotations

from typing import Any

import pytest

from memesh.app.operations.router import (
    END_ALL_SESSIONS,
    END_SESSION,
    RECORD_HOST_FACT,
    REGISTER_SESSION,
    RENEW_SESSION,
)
from memesh.context import CallContext
from memesh.errors import ErrorCode
from memesh.store.sqlite import SqliteStore
from tests.calls import call, run
from tests.conftest import NOW

PROJECT = "demo~" + "3" * 32
NOW_MS = int(NOW.timestamp() * 1000)


def _register(store: SqliteStore, ctx: CallContext, **extra: Any) -> Any:
    arguments = {
        "session_id": "sess-1",
        "principal_id": "reviewer",
        "project": PROJECT,
        "host_kind": "claude-code",
        **extra,
    }
    return run(REGISTER_SESSION, store, arguments, ctx)


def test_a_registration_is_recorded_live_with_its_first_generation_and_the_default_lease(
    fresh_db: SqliteStore, ctx: CallContext
) -> None:
    recorded = _register(fresh_db, ctx, work_summary="reviewing the auth change").unwrap()
    assert recorded == {
        "session_id": "sess-1",
        "principal_id": "reviewer",
        "project": PROJECT,
        "host_kind": "claude-code",
        "work_summary": "reviewing the auth change",
        "generation": 1,
        "lease_expires_at_ms": NOW_MS + 60_000,
    }
    [card] = fresh_db.live_sessions(PROJECT, NOW_MS, 10)
    assert (card.session_id, card.principal_id, card.generation, card.lease_expires_at_ms) == (
        "sess-1",
        "reviewer",
        1,
        NOW_MS + 60_000,
    )


def test_registering_a_session_again_gives_a_new_generation_and_ends_the_earlier_one(
    fresh_db: SqliteStore, ctx: CallContext
) -> None:
    _register(fresh_db, ctx).unwrap()
    again = _register(fresh_db, ctx).unwrap()
    assert again["generation"] == 2
    assert [card.generation for card in fresh_db.live_sessions(PROJECT, NOW_MS, 10)] == [2]


def test_ids_are_recorded_in_their_canonical_form(fresh_db: SqliteStore, ctx: CallContext) -> None:
    recorded = _register(fresh_db, ctx, session_id="  sess-1 ", principal_id="cafe\u0301").unwrap()
    assert (recorded["session_id"], recorded["principal_id"]) == ("sess-1", "caf\u00e9")


def test_an_id_spelled_as_a_path_or_left_blank_is_refused_naming_each_field(
    fresh_db: SqliteStore, ctx: CallContext
) -> None:
    error = _register(fresh_db, ctx, session_id="/root/.ssh", project="  ").failure()
    assert error.code == ErrorCode.BAD_BODY
    assert error.message.startswith("session_id: ") and "; project: " in error.message
    assert fresh_db.latest_session("/root/.ssh") is None


@pytest.mark.parametrize(
    "extra",
    [{"host_kind": "vim"}, {"lease_ms": "soon"}, {"op": "register"}, {"work_summary": 3}],
    ids=["unknown host kind", "lease not a number", "unknown field", "summary not text"],
)
def test_a_registration_the_schema_does_not_admit_is_refused_before_anything_is_recorded(
    fresh_db: SqliteStore, ctx: CallContext, extra: dict[str, Any]
) -> None:
    assert _register(fresh_db, ctx, **extra).failure().code == ErrorCode.BAD_BODY
    assert fresh_db.latest_session("sess-1") is None


@pytest.mark.parametrize(("asked", "lease"), [(5_000, 5_000), (999, 60_000), (600_001, 60_000), (None, 60_000)])
def test_a_lease_outside_one_second_to_ten_minutes_is_the_default_minute(
    fresh_db: SqliteStore, ctx: CallContext, asked: int | None, lease: int
) -> None:
    extra = {} if asked is None else {"lease_ms": asked}
    assert _register(fresh_db, ctx, **extra).unwrap()["lease_expires_at_ms"] == NOW_MS + lease


def test_a_summary_is_cut_to_500_characters_and_a_blank_one_is_none(fresh_db: SqliteStore, ctx: CallContext) -> None:
    assert _register(fresh_db, ctx, work_summary="x" * 600).unwrap()["work_summary"] == "x" * 500
    assert _register(fresh_db, ctx, work_summary="   ").unwrap()["work_summary"] is None


def test_a_renewed_lease_runs_from_the_renewal(fresh_db: SqliteStore, ctx: CallContext) -> None:
    _register(fresh_db, ctx, lease_ms=5_000).unwrap()
    later = ctx.at(NOW.replace(minute=5))
    renewed = run(RENEW_SESSION, fresh_db, {"session_id": "sess-1", "generation": 1, "lease_ms": 5_000}, later)
    expires = int(later.now.timestamp() * 1000) + 5_000
    assert renewed.unwrap() == {"lease_expires_at_ms": expires}
    [card] = fresh_db.live_sessions(PROJECT, NOW_MS, 10)
    assert card.lease_expires_at_ms == expires


def test_an_ended_registration_is_no_longer_live_and_a_renewal_does_not_revive_it(
    fresh_db: SqliteStore, ctx: CallContext
) -> None:
    _register(fresh_db, ctx).unwrap()
    ended = run(END_SESSION, fresh_db, {"session_id": "sess-1", "generation": 1}, ctx).unwrap()
    assert ended == {"ended_at": "2026-11-30T12:00:00.000Z"}
    run(RENEW_SESSION, fresh_db, {"session_id": "sess-1", "generation": 1}, ctx).unwrap()
    assert fresh_db.live_sessions(PROJECT, NOW_MS, 10) == []
    latest = fresh_db.latest_session("sess-1")
    assert latest is not None and latest.disconnected


def test_a_router_starting_ends_every_registration_from_before(fresh_db: SqliteStore, ctx: CallContext) -> None:
    _register(fresh_db, ctx).unwrap()
    _register(fresh_db, ctx, session_id="sess-2").unwrap()
    assert run(END_ALL_SESSIONS, fresh_db, {}, ctx).unwrap() == {"ended_at": "2026-11-30T12:00:00.000Z"}
    assert fresh_db.live_sessions(PROJECT, NOW_MS, 10) == []
    assert run(END_ALL_SESSIONS, fresh_db, {"project": PROJECT}, ctx).failure().code == ErrorCode.BAD_BODY


def _delivered(store: SqliteStore, ctx: CallContext) -> dict[str, Any]:
    arguments = {
        "action": "send",
        "project": PROJECT,
        "sender": "author",
        "recipient": "reviewer",
        "idempotency_key": "k",
        "payload": "please review",
    }
    sent: dict[str, Any] = call("message", store, arguments, ctx).unwrap()
    return sent


@pytest.mark.parametrize(
    ("kind", "state"), [("host_accept", "accepted"), ("host_reject", "unavailable"), ("host_ack", "acknowledged")]
)
def test_a_host_fact_is_recorded_as_a_receipt_of_the_delivery_from_the_host(
    fresh_db: SqliteStore, ctx: CallContext, kind: str, state: str
) -> None:
    sent = _delivered(fresh_db, ctx)
    fact = {
        "delivery_id": sent["delivery_id"],
        "message_id": sent["message_id"],
        "kind": kind,
        "session_id": "sess-1",
        "host_kind": "claude-code",
        "detail": "generation 1",
    }
    receipt = run(RECORD_HOST_FACT, fresh_db, fact, ctx).unwrap()
    assert {key: receipt[key] for key in ("kind", "state", "fact_source", "actor", "session_id", "source_host")} == {
        "kind": kind,
        "state": state,
        "fact_source": "host",
        "actor": None,
        "session_id": "sess-1",
        "source_host": "claude-code",
    }
    listed = call(
        "message",
        fresh_db,
        {"action": "receipts", "project": PROJECT, "recipient": "reviewer", "message_id": sent["message_id"]},
        ctx,
    ).unwrap()
    assert listed["receipts"] == [receipt]


def test_a_host_fact_of_a_kind_only_a_recipient_records_is_refused(fresh_db: SqliteStore, ctx: CallContext) -> None:
    sent = _delivered(fresh_db, ctx)
    fact = {"delivery_id": sent["delivery_id"], "message_id": sent["message_id"], "kind": "ack"}
    assert run(RECORD_HOST_FACT, fresh_db, fact, ctx).failure().code == ErrorCode.BAD_BODY
