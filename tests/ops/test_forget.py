"""forget: archive a memory or remove one observation; nothing is ever deleted outright."""

from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING

from memesh.errors import ErrorCode
from memesh.model import Entity
from memesh.store.sqlite import SqliteStore

if TYPE_CHECKING:
    from tests.conftest import Caller


def _stored(db: SqliteStore, name: str) -> Entity:
    entity = db.find(name)
    assert entity is not None
    return entity


def test_forget_archives_the_memory_and_hides_it_from_recall(tools: Caller, fresh_db: SqliteStore) -> None:
    tools.ok("remember", {"name": "m", "type": "fact", "observations": ["ephemeral detail"]})
    assert tools.ok("forget", {"name": "m"}) == {"archived": True, "name": "m"}
    assert _stored(fresh_db, "m").status == "archived"
    assert tools.ok("recall", {"query": "ephemeral"})["entities"] == []
    assert tools.ok("recall", {})["entities"] == []


def test_an_archived_memory_is_visible_with_include_archived(tools: Caller) -> None:
    tools.ok("remember", {"name": "m", "type": "fact", "observations": ["ephemeral detail"]})
    tools.ok("forget", {"name": "m"})
    [entity] = tools.ok("recall", {"query": "ephemeral", "include_archived": True})["entities"]
    assert entity["name"] == "m"
    assert entity["archived"] is True
    assert entity["observations"] == ["ephemeral detail"]


def test_forget_keeps_everything_an_archived_memory_had(tools: Caller, fresh_db: SqliteStore) -> None:
    tools.ok("remember", {"name": "t", "type": "fact", "observations": ["t"]})
    tools.ok(
        "remember",
        {
            "name": "m",
            "type": "fact",
            "title": "T",
            "observations": ["a", "b"],
            "tags": ["x"],
            "relations": [{"to": "t", "type": "uses"}],
        },
    )
    before = _stored(fresh_db, "m")
    tools.ok("forget", {"name": "m"})
    after = _stored(fresh_db, "m")
    assert (after.title, after.observations, after.tags, after.relations) == (
        before.title,
        before.observations,
        before.tags,
        before.relations,
    )


def test_forgetting_a_missing_memory_is_not_found_with_the_data_body(tools: Caller) -> None:
    error = tools.fails("forget", {"name": "ghost"})
    assert error.code == ErrorCode.NOT_FOUND
    assert error.data == {"name": "ghost", "archived": False}


def test_removing_an_observation_from_a_missing_memory_is_not_found_with_the_data_body(tools: Caller) -> None:
    error = tools.fails("forget", {"name": "ghost", "observation": "x"})
    assert error.code == ErrorCode.NOT_FOUND
    assert error.data == {"name": "ghost", "observation_removed": False, "entity_found": False}


def test_forget_removes_one_observation_and_keeps_the_memory_active(tools: Caller, fresh_db: SqliteStore) -> None:
    tools.ok("remember", {"name": "m", "type": "fact", "observations": ["keep", "drop this", "also keep"]})
    out = tools.ok("forget", {"name": "m", "observation": "drop this"})
    assert out == {
        "observation_removed": True,
        "name": "m",
        "observation": "drop this",
        "remaining_observations": 2,
        "entity_found": True,
    }
    entity = _stored(fresh_db, "m")
    assert entity.status == "active"
    assert entity.observations == ["keep", "also keep"]
    assert tools.ok("recall", {"query": "drop"})["entities"] == []
    assert [e["name"] for e in tools.ok("recall", {"query": "keep"})["entities"]] == ["m"]


def test_only_the_first_exact_match_is_removed(tools: Caller, fresh_db: SqliteStore) -> None:
    tools.ok("remember", {"name": "l", "type": "lesson_learned", "observations": ["retry", "other", "retry"]})
    out = tools.ok("forget", {"name": "l", "observation": "retry"})
    assert out["remaining_observations"] == 2
    assert _stored(fresh_db, "l").observations == ["other", "retry"]


def test_an_observation_that_matches_only_in_part_is_not_found_with_the_data_body(
    tools: Caller, fresh_db: SqliteStore
) -> None:
    tools.ok("remember", {"name": "m", "type": "fact", "observations": ["exact text", "more"]})
    for near in ("exact", "Exact text", "exact text "):
        error = tools.fails("forget", {"name": "m", "observation": near})
        assert error.code == ErrorCode.NOT_FOUND
        assert error.data == {
            "name": "m",
            "observation_removed": False,
            "entity_found": True,
            "remaining_observations": 2,
        }
    assert _stored(fresh_db, "m").observations == ["exact text", "more"]


def test_forgetting_twice_keeps_the_memory_archived(tools: Caller, fresh_db: SqliteStore) -> None:
    tools.ok("remember", {"name": "m", "type": "fact", "observations": ["o"]})
    tools.ok("forget", {"name": "m"})
    assert tools.ok("forget", {"name": "m"})["archived"] is True
    assert _stored(fresh_db, "m").status == "archived"


def _snapshot(tools: Caller, name: str = "session-abc123-summary") -> None:
    tools.ok(
        "remember",
        {"name": name, "type": "session-insight", "observations": ["edited app.py", "ran the tests", "fixed a typo"]},
    )


def test_a_forgotten_snapshot_observation_is_recorded_by_its_hash(tools: Caller, fresh_db: SqliteStore) -> None:
    _snapshot(tools)
    tools.ok("forget", {"name": "session-abc123-summary", "observation": "ran the tests"})
    entity = _stored(fresh_db, "session-abc123-summary")
    assert entity.metadata["forgotten_observation_hashes"] == [hashlib.sha256(b"ran the tests").hexdigest()]
    assert entity.observations == ["edited app.py", "fixed a typo"]


def test_each_snapshot_kind_records_forgotten_observations(tools: Caller, fresh_db: SqliteStore) -> None:
    for kind in ("files", "fixes", "summary"):
        name = f"session-s1-{kind}"
        _snapshot(tools, name)
        tools.ok("forget", {"name": name, "observation": "fixed a typo"})
        assert len(_stored(fresh_db, name).metadata["forgotten_observation_hashes"]) == 1


def test_an_ordinary_memory_records_no_forgotten_hashes(tools: Caller, fresh_db: SqliteStore) -> None:
    tools.ok("remember", {"name": "session-abc-summary", "type": "fact", "observations": ["a", "b"]})
    tools.ok("remember", {"name": "notes", "type": "session-insight", "observations": ["a", "b"]})
    for name in ("session-abc-summary", "notes"):
        tools.ok("forget", {"name": name, "observation": "a"})
        assert "forgotten_observation_hashes" not in _stored(fresh_db, name).metadata


def test_remembering_a_forgotten_snapshot_observation_clears_its_exclusion(
    tools: Caller, fresh_db: SqliteStore
) -> None:
    _snapshot(tools)
    tools.ok("forget", {"name": "session-abc123-summary", "observation": "ran the tests"})
    tools.ok("forget", {"name": "session-abc123-summary", "observation": "fixed a typo"})
    again = {"name": "session-abc123-summary", "type": "session-insight", "observations": ["ran the tests"]}
    tools.ok("remember", again)
    entity = _stored(fresh_db, "session-abc123-summary")
    assert entity.observations == ["edited app.py", "ran the tests"]
    assert entity.metadata["forgotten_observation_hashes"] == [hashlib.sha256(b"fixed a typo").hexdigest()]


def test_forget_needs_a_name(tools: Caller) -> None:
    error = tools.fails("forget", {})
    assert error.code == ErrorCode.BAD_BODY
    assert error.message.startswith("name: ")


def test_forgetting_an_archived_memory_says_nothing_changed(tools: Caller) -> None:
    tools.ok("remember", {"name": "m", "type": "fact", "observations": ["o"]})
    assert tools.ok("forget", {"name": "m"}) == {"archived": True, "name": "m"}
    assert tools.ok("forget", {"name": "m"}) == {"archived": True, "already_archived": True, "name": "m"}
