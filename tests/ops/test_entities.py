"""Listing and looking up memories as stored: newest first, whole metadata, no access counted."""

from __future__ import annotations

from memesh.errors import ErrorCode
from memesh.ops.entities import LIST_MAX_LIMIT, get_entity, list_entities
from memesh.store.sqlite import SqliteStore
from tests.conftest import Caller


def test_listing_is_newest_first_and_includes_archived(fresh_db: SqliteStore, tools: Caller) -> None:
    for name in ("a", "b", "c"):
        tools.ok("remember", {"name": name, "type": "note", "observations": [name]})
    tools.ok("forget", {"name": "b"})
    listed = list_entities(fresh_db, None, 10).unwrap()
    assert [e["name"] for e in listed] == ["c", "b", "a"]
    assert listed[1].get("archived") is True


def test_listing_filters_by_type(fresh_db: SqliteStore, tools: Caller) -> None:
    tools.ok("remember", {"name": "a", "type": "decision", "observations": ["x"]})
    tools.ok("remember", {"name": "b", "type": "note", "observations": ["x"]})
    assert [e["name"] for e in list_entities(fresh_db, "decision", 10).unwrap()] == ["a"]


def test_a_limit_outside_the_range_is_a_bad_param(fresh_db: SqliteStore) -> None:
    for limit in (0, LIST_MAX_LIMIT + 1):
        assert list_entities(fresh_db, None, limit).failure().code is ErrorCode.BAD_PARAM


def test_lookup_keeps_the_replaced_history_whole(fresh_db: SqliteStore, tools: Caller) -> None:
    tools.ok("remember", {"name": "a", "type": "note", "observations": ["old"]})
    tools.ok("remember", {"name": "a", "observations": ["new"], "replace": True})
    metadata = get_entity(fresh_db, "a").unwrap().get("metadata", {})
    assert metadata["replaced_history"][0]["observations"] == ["old"]


def test_neither_listing_nor_lookup_counts_access(fresh_db: SqliteStore, tools: Caller) -> None:
    tools.ok("remember", {"name": "a", "type": "note", "observations": ["x"]})
    get_entity(fresh_db, "a")
    list_entities(fresh_db, None, 10)
    assert get_entity(fresh_db, "a").unwrap().get("access_count") == 0


def test_lookup_of_a_missing_name_is_not_found(fresh_db: SqliteStore) -> None:
    error = get_entity(fresh_db, "ghost").failure()
    assert error.code is ErrorCode.NOT_FOUND
    assert error.message == 'Entity "ghost" not found'
