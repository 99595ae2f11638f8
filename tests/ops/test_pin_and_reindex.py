"""pin/unpin and the keyword-index rebuild."""

from __future__ import annotations

from typing import Any

import pytest

from memesh.errors import ErrorCode
from memesh.ops.pin import set_pinned
from memesh.store.sqlite import SqliteStore


def test_pin_sets_metadata_pin_and_unpin_removes_it(fresh_db: SqliteStore, tools: Any) -> None:
    tools.ok("remember", {"name": "a", "type": "note", "observations": ["x"]})
    assert set_pinned(fresh_db, "a", True).unwrap() == {"name": "a", "pinned": True, "found": True}
    entity = fresh_db.find("a")
    assert entity is not None and entity.metadata["pin"] is True
    assert set_pinned(fresh_db, "a", False).unwrap()["pinned"] is False
    entity = fresh_db.find("a")
    assert entity is not None and "pin" not in entity.metadata


def test_pinning_a_missing_memory_reports_found_false_and_pinned_null(fresh_db: SqliteStore) -> None:
    error = set_pinned(fresh_db, "nope", True).failure()
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
