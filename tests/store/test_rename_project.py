"""The project rename moves every carrier: tags, metadata, the task state, proposals and durable messages (their
rows in agent_messages, agent_deliveries, agent_message_events and agent_sessions, through the message store)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from memesh.context import CallContext
from memesh.store.sqlite import SqliteStore
from memesh.values import RenameRefused
from tests.conftest import Caller

OLD = "old~" + "1" * 32
NEW = "new~" + "2" * 32


@pytest.fixture
def caller(fresh_db: SqliteStore, ctx: CallContext) -> Caller:
    return Caller(fresh_db, replace(ctx, message_quota=lambda: None))


def _send(caller: Caller, project: str, key: str, payload: str = "review ready") -> dict[str, Any]:
    request = {
        "action": "send",
        "project": project,
        "sender": "author",
        "recipient": "reviewer",
        "idempotency_key": key,
        "payload": payload,
    }
    sent: dict[str, Any] = caller.ok("message", request)
    return sent


def _inbox(caller: Caller, project: str) -> list[str]:
    polled = caller.ok("message", {"action": "poll", "project": project, "recipient": "reviewer"})
    return [event["message_id"] for event in polled["events"]]


def test_messages_move_with_their_deliveries_and_events_and_a_taken_scope_is_left_in_place(
    caller: Caller, fresh_db: SqliteStore
) -> None:
    moved = _send(caller, OLD, "a")
    collides = _send(caller, OLD, "b")
    already = _send(caller, NEW, "b")  # the same idempotency scope (project, sender, key) in the destination
    caller.ok("task_state", {"project": OLD, "goal": "ship it"})
    with fresh_db.transaction():
        counts = fresh_db.rename_project(OLD, NEW)
    assert (counts["messages_moved"], counts["messages_left_in_place"], counts["task_state_moved"]) == (1, 1, 1)
    assert _inbox(caller, NEW) == [moved["message_id"], already["message_id"]]  # in the order they were sent
    fetched = caller.ok(
        "message", {"action": "fetch", "project": NEW, "recipient": "reviewer", "message_id": moved["message_id"]}
    )
    assert (fetched["project"], fetched["payload"]) == (NEW, "review ready")
    assert _inbox(caller, OLD) == [collides["message_id"]]  # left in place, still readable where it was
    assert fresh_db.project_counts()[NEW] == {"entities": 1, "messages": 2}
    assert fresh_db.project_counts()[OLD] == {"entities": 0, "messages": 1}
    assert caller.ok("task_state", {"project": NEW})["state"]["goal"] == "ship it"


def test_a_project_carried_only_by_messages_is_listed_and_renamed(caller: Caller, fresh_db: SqliteStore) -> None:
    sent = _send(caller, OLD, "only")
    assert fresh_db.project_counts() == {OLD: {"entities": 0, "messages": 1}}
    with fresh_db.transaction():
        counts = fresh_db.rename_project(OLD, NEW)
    assert (counts["messages_moved"], counts["entities_renamed"]) == (1, 0)
    assert fresh_db.project_counts() == {NEW: {"entities": 0, "messages": 1}}
    assert _inbox(caller, NEW) == [sent["message_id"]]


@pytest.mark.sqlite_only
def test_a_delivery_a_trigger_keeps_behind_rolls_the_whole_rename_back(caller: Caller, fresh_db: SqliteStore) -> None:
    _send(caller, OLD, "a")
    caller.ok("remember", {"name": "tagged", "type": "fact", "observations": ["x"], "tags": [f"project:{OLD}"]})
    fresh_db.conn.execute(
        "CREATE TRIGGER keep_delivery AFTER UPDATE OF project ON agent_deliveries "
        "BEGIN UPDATE agent_deliveries SET project = OLD.project WHERE id = NEW.id; END"
    )
    with pytest.raises(RenameRefused, match="agent_deliveries"), fresh_db.transaction():
        fresh_db.rename_project(OLD, NEW)
    assert fresh_db.project_counts() == {OLD: {"entities": 1, "messages": 1}}
