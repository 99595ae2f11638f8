"""pin/unpin and the keyword-index rebuild."""

from __future__ import annotations

from typing import Any

import pytest

from memesh.app.operations.maintenance import PIN, REINDEX
from memesh.context import CallContext
from memesh.errors import ErrorCode
from memesh.store.sqlite import SqliteStore
from tests.calls import run


def test_pin_sets_metadata_pin_and_unpin_removes_it(fresh_db: SqliteStore, tools: Any, ctx: CallContext) -> None:
    tools.ok("remember", {"name": "a", "type": "note", "observations": ["x"]})
    assert run(PIN, fresh_db, {"name": "a", "pinned": True}, ctx).unwrap() == {
        "name": "a",
        "pinned": True,
        "found": True,
    }
    entity = fresh_db.find("a")
    assert entity is not None and entity.metadata["pin"] is True
    assert run(PIN, fresh_db, {"name": "a", "pinned": False}, ctx).unwrap()["pinned"] is False
    entity = fresh_db.find("a")
    assert entity is not None and "pin" not in entity.metadata


def test_pinning_a_missing_memory_reports_found_false_and_pinned_null(fresh_db: SqliteStore, ctx: CallContext) -> None:
    error = run(PIN, fresh_db, {"name": "nope", "pinned": True}, ctx).failure()
    assert error.code == ErrorCode.NOT_FOUND and error.data == {"name": "nope", "pinned": None, "found": False}


@pytest.mark.sqlite_only
def test_an_emptied_keyword_index_comes_back_without_touching_memories(fresh_db: SqliteStore, tools: Any) -> None:
    tools.ok("remember", {"name": "a", "type": "note", "observations": ["kubernetes rollout"]})
    tools.ok("remember", {"name": "b", "type": "note", "observations": ["postgres vacuum"]})
    fresh_db.conn.execute("DELETE FROM entities_fts")
    assert tools.ok("recall", {"query": "kubernetes"})["entities"] == []
    before = tools.ok("export", {})["entities"]
    assert fresh_db.rebuild_index() == 2
    assert [e["name"] for e in tools.ok("recall", {"query": "kubernetes"})["entities"]] == ["a"]
    assert tools.ok("export", {})["entities"] == before


@pytest.mark.sqlite_only
def test_a_corrupted_index_is_rebuilt(fresh_db: SqliteStore, tools: Any) -> None:
    tools.ok("remember", {"name": "a", "type": "note", "observations": ["kubernetes rollout"]})
    fresh_db.conn.execute("DELETE FROM entities_fts_data WHERE id > 1")
    progress: list[tuple[int, int]] = []
    fresh_db.rebuild_index(lambda done, total: progress.append((done, total)))
    assert progress[-1] == (1, 1)
    assert [e["name"] for e in tools.ok("recall", {"query": "rollout"})["entities"]] == ["a"]


def test_pin_refuses_a_field_it_does_not_know(fresh_db: SqliteStore, ctx: CallContext) -> None:
    error = run(PIN, fresh_db, {"name": "a", "pinned": True, "forever": True}, ctx).failure()
    assert error.code == ErrorCode.BAD_BODY


def test_reindex_through_the_door_reports_each_step_to_whoever_watches(
    fresh_db: SqliteStore, tools: Any, ctx: CallContext
) -> None:
    from memesh.app import dispatch
    from memesh.app.resources import Resources

    tools.ok("remember", {"name": "a", "type": "note", "observations": ["kubernetes rollout"]})
    tools.ok("remember", {"name": "b", "type": "note", "observations": ["postgres vacuum"]})
    steps: list[tuple[int, int]] = []
    resources = Resources.over(fresh_db).watched(lambda done, total: steps.append((done, total)))
    assert dispatch.run(REINDEX, resources, {}, ctx).unwrap() == {"entities": 2}
    assert steps[-1] == (2, 2)
    assert [e["name"] for e in tools.ok("recall", {"query": "vacuum"})["entities"]] == ["b"]
