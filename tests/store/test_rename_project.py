"""The project rename moves every carrier: tags, metadata, the task state, proposals and durable messages."""

from __future__ import annotations

from memesh.app.dispatch import call
from memesh.context import CallContext
from memesh.store.sqlite import SqliteStore


def test_messages_move_and_an_equivalent_row_in_the_destination_is_left_in_place(
    fresh_db: SqliteStore, ctx: CallContext
) -> None:
    # The messages table belongs to another part of MeMesh; this stands in for it with the one shape the rename
    # relies on: a project column, and a UNIQUE key that can refuse a move.
    fresh_db.conn.execute(
        "CREATE TABLE agent_messages (id INTEGER PRIMARY KEY, project TEXT, recipient TEXT, body TEXT, "
        "UNIQUE (project, recipient, body))"
    )
    fresh_db.conn.executemany(
        "INSERT INTO agent_messages (project, recipient, body) VALUES (?, ?, ?)",
        [("old", "r", "hello"), ("old", "r", "dup"), ("new", "r", "dup")],
    )
    call("task_state", fresh_db, {"project": "old", "goal": "ship it"}, ctx).unwrap()
    with fresh_db.transaction():
        counts = fresh_db.rename_project("old", "new")
    assert counts["messages_moved"] == 1
    assert counts["messages_left_in_place"] == 1
    assert counts["task_state_moved"] == 1
    assert fresh_db.project_counts()["new"] == {"entities": 1, "messages": 2}
    assert call("task_state", fresh_db, {"project": "new"}, ctx).unwrap()["state"]["goal"] == "ship it"
