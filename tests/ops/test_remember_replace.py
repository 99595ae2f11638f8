"""remember with replace: true: the rewrite, the history it keeps, and the memories it refuses."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from memesh.errors import ErrorCode
from memesh.model import Entity
from memesh.store.sqlite import SqliteStore

if TYPE_CHECKING:
    from tests.conftest import Caller


def _stored(db: SqliteStore, name: str) -> Entity:
    entity = db.find(name)
    assert entity is not None
    return entity


def _history(db: SqliteStore, name: str) -> list[dict[str, Any]]:
    history: list[dict[str, Any]] = _stored(db, name).metadata.get("replaced_history", [])
    return history


def test_replace_rewrites_observations_and_keeps_tags_when_none_are_given(tools: Caller, fresh_db: SqliteStore) -> None:
    tools.ok("remember", {"name": "m", "type": "fact", "title": "T", "observations": ["a", "b"], "tags": ["x"]})
    out = tools.ok("remember", {"name": "m", "replace": True, "observations": ["c"]})
    assert out["replaced"] is True
    assert out["title"] == "T"  # read back: a replace without title keeps the stored one
    assert out["type"] == "fact"
    entity = _stored(fresh_db, "m")
    assert entity.observations == ["c"]
    assert entity.tags == ["x"]
    assert entity.title == "T"


def test_replace_rewrites_tags_and_title_when_given(tools: Caller, fresh_db: SqliteStore) -> None:
    tools.ok("remember", {"name": "m", "type": "fact", "title": "T", "observations": ["a"], "tags": ["x", "y"]})
    out = tools.ok("remember", {"name": "m", "replace": True, "title": "U", "observations": ["a"], "tags": ["z"]})
    assert out["title"] == "U"
    entity = _stored(fresh_db, "m")
    assert entity.tags == ["z"]
    assert entity.title == "U"


def test_replace_keeps_relations(tools: Caller, fresh_db: SqliteStore) -> None:
    tools.ok("remember", {"name": "target", "type": "fact", "observations": ["t"]})
    tools.ok(
        "remember",
        {"name": "m", "type": "fact", "observations": ["a"], "relations": [{"to": "target", "type": "uses"}]},
    )
    tools.ok("remember", {"name": "m", "replace": True, "observations": ["b"]})
    assert [(r.to_name, r.type) for r in _stored(fresh_db, "m").relations] == [("target", "uses")]


def test_replace_records_the_previous_version_in_history(tools: Caller, fresh_db: SqliteStore) -> None:
    tools.ok("remember", {"name": "m", "type": "fact", "title": "T", "observations": ["a", "b"], "tags": ["y", "x"]})
    tools.ok("remember", {"name": "m", "replace": True, "observations": ["c"]})
    assert _history(fresh_db, "m") == [
        {"replaced_at": "2026-11-30T12:00:00.000Z", "title": "T", "observations": ["a", "b"], "tags": ["x", "y"]}
    ]


def test_the_old_text_leaves_recall_and_the_new_text_is_found(tools: Caller) -> None:
    tools.ok("remember", {"name": "m", "type": "fact", "observations": ["postgres everywhere"]})
    tools.ok("remember", {"name": "m", "replace": True, "observations": ["sqlite everywhere"]})
    assert tools.ok("recall", {"query": "postgres"})["entities"] == []
    found = tools.ok("recall", {"query": "sqlite"})["entities"]
    assert [e["name"] for e in found] == ["m"]
    assert found[0]["metadata"]["replaced_history_count"] == 1
    assert "replaced_history" not in found[0]["metadata"]


def test_history_keeps_the_newest_20_versions(tools: Caller, fresh_db: SqliteStore) -> None:
    tools.ok("remember", {"name": "m", "type": "fact", "observations": ["v0"]})
    for version in range(1, 26):
        tools.ok("remember", {"name": "m", "replace": True, "observations": [f"v{version}"]})
    history = _history(fresh_db, "m")
    assert [entry["observations"] for entry in history] == [[f"v{n}"] for n in range(5, 25)]


def test_history_drops_the_oldest_versions_to_stay_within_64_kb(tools: Caller, fresh_db: SqliteStore) -> None:
    big = ["w" * 9_000, "x" * 9_000]  # ~18 KB per version: only three fit in 64 KB
    tools.ok("remember", {"name": "m", "type": "fact", "observations": ["start"]})
    for version in range(6):
        tools.ok("remember", {"name": "m", "replace": True, "observations": [*big, f"v{version}"]})
    history = _history(fresh_db, "m")
    size = len(json.dumps(history, ensure_ascii=False, separators=(",", ":")).encode())
    assert size <= 64 * 1024
    assert [entry["observations"][-1] for entry in history] == ["v2", "v3", "v4"]
    assert not any(entry.get("truncated") for entry in history)


def test_a_single_version_over_64_kb_keeps_what_fits_and_is_marked_truncated(
    tools: Caller, fresh_db: SqliteStore
) -> None:
    observations = [f"{n:02d}" + "o" * 9_900 for n in range(8)]  # ~80 KB
    tags = [f"tag-{n}" for n in range(5)]
    tools.ok("remember", {"name": "m", "type": "fact", "observations": observations, "tags": tags})
    tools.ok("remember", {"name": "m", "replace": True, "observations": ["small"]})
    [entry] = _history(fresh_db, "m")
    assert entry["truncated"] is True
    assert set(entry) == {"replaced_at", "title", "observations", "tags", "truncated"}
    assert 0 < len(entry["observations"]) < len(observations)
    assert entry["observations"] == observations[: len(entry["observations"])]
    assert entry["tags"] == sorted(tags)[: len(entry["tags"])]
    assert len(json.dumps([entry], ensure_ascii=False, separators=(",", ":")).encode()) <= 64 * 1024


def test_replace_on_a_missing_name_without_type_fails_and_creates_nothing(tools: Caller, fresh_db: SqliteStore) -> None:
    error = tools.fails("remember", {"name": "ghost", "replace": True, "observations": ["x"]})
    assert error.code == ErrorCode.OPERATION_FAILED
    assert fresh_db.find("ghost") is None


def test_replace_on_a_missing_name_with_type_creates_it_and_reports_replaced_false(
    tools: Caller, fresh_db: SqliteStore
) -> None:
    out = tools.ok("remember", {"name": "ghost", "type": "fact", "replace": True, "observations": ["x"]})
    assert out["replaced"] is False
    entity = _stored(fresh_db, "ghost")
    assert entity.type == "fact"
    assert entity.observations == ["x"]
    assert "replaced_history" not in entity.metadata


def test_replace_on_an_archived_memory_is_refused_and_changes_nothing(tools: Caller, fresh_db: SqliteStore) -> None:
    tools.ok("remember", {"name": "m", "type": "fact", "observations": ["a"]})
    tools.ok("forget", {"name": "m"})
    error = tools.fails("remember", {"name": "m", "replace": True, "observations": ["b"]})
    assert error.code == ErrorCode.OPERATION_FAILED
    entity = _stored(fresh_db, "m")
    assert entity.status == "archived"
    assert entity.observations == ["a"]


def test_an_archived_memory_can_be_replaced_after_it_is_remembered_again(tools: Caller, fresh_db: SqliteStore) -> None:
    tools.ok("remember", {"name": "m", "type": "fact", "observations": ["a"]})
    tools.ok("forget", {"name": "m"})
    tools.ok("remember", {"name": "m", "type": "fact", "observations": ["a"]})
    assert tools.ok("remember", {"name": "m", "replace": True, "observations": ["b"]})["replaced"] is True
    assert _stored(fresh_db, "m").observations == ["b"]


def test_replace_without_observations_is_refused(tools: Caller) -> None:
    tools.ok("remember", {"name": "m", "type": "fact", "observations": ["a"]})
    error = tools.fails("remember", {"name": "m", "replace": True, "title": "only a title"})
    assert error.code == ErrorCode.BAD_BODY
    assert error.message.startswith("observations: ")


def test_replace_with_a_different_type_retypes_the_memory(tools: Caller, fresh_db: SqliteStore) -> None:
    tools.ok("remember", {"name": "m", "type": "fact", "observations": ["a"]})
    out = tools.ok("remember", {"name": "m", "type": "decision", "replace": True, "observations": ["a"]})
    assert out["type"] == "decision"
    assert _stored(fresh_db, "m").type == "decision"


def test_replace_with_lesson_does_not_retype_a_lesson_learned(tools: Caller, fresh_db: SqliteStore) -> None:
    tools.ok("remember", {"name": "m", "type": "lesson_learned", "observations": ["a"]})
    out = tools.ok("remember", {"name": "m", "type": "lesson", "replace": True, "observations": ["b"]})
    assert out["type"] == "lesson_learned"
    assert _stored(fresh_db, "m").type == "lesson_learned"


def test_replace_with_lesson_retypes_a_memory_stored_under_the_old_spelling(
    tools: Caller, fresh_db: SqliteStore
) -> None:
    tools.ok("remember", {"name": "m", "type": "fact", "observations": ["a"]})
    # An older version stored the alias itself; the store is written directly to recreate that row.
    fresh_db.conn.execute("UPDATE entities SET type = 'lesson' WHERE name = 'm'")
    out = tools.ok("remember", {"name": "m", "type": "lesson", "replace": True, "observations": ["b"]})
    assert out["type"] == "lesson_learned"
    assert _stored(fresh_db, "m").type == "lesson_learned"


def test_replace_without_type_keeps_the_stored_type(tools: Caller, fresh_db: SqliteStore) -> None:
    tools.ok("remember", {"name": "m", "type": "pattern", "observations": ["a"]})
    assert tools.ok("remember", {"name": "m", "replace": True, "observations": ["b"]})["type"] == "pattern"
    assert _stored(fresh_db, "m").type == "pattern"
