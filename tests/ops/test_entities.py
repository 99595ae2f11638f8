"""Listing and looking up memories as stored: newest first, whole metadata, no access counted."""

from __future__ import annotations

from typing import Any

from returns.result import Result

from memesh.app.operations.memory import ENTITIES, ENTITY
from memesh.context import CallContext
from memesh.errors import ErrorCode, MemeshError
from memesh.store.sqlite import SqliteStore
from tests.calls import run
from tests.conftest import Caller


def list_entities(
    store: SqliteStore, entity_type: str | None, limit: int, ctx: CallContext
) -> Result[Any, MemeshError]:
    return run(ENTITIES, store, {"limit": limit, **({"type": entity_type} if entity_type else {})}, ctx)


def get_entity(store: SqliteStore, name: str, ctx: CallContext) -> Result[Any, MemeshError]:
    return run(ENTITY, store, {"name": name}, ctx)


def test_listing_is_newest_first_and_includes_archived(fresh_db: SqliteStore, ctx: CallContext, tools: Caller) -> None:
    for name in ("a", "b", "c"):
        tools.ok("remember", {"name": name, "type": "note", "observations": [name]})
    tools.ok("forget", {"name": "b"})
    listed = list_entities(fresh_db, None, 10, ctx).unwrap()
    assert [e["name"] for e in listed] == ["c", "b", "a"]
    assert listed[1].get("archived") is True


def test_listing_filters_by_type(fresh_db: SqliteStore, ctx: CallContext, tools: Caller) -> None:
    tools.ok("remember", {"name": "a", "type": "decision", "observations": ["x"]})
    tools.ok("remember", {"name": "b", "type": "note", "observations": ["x"]})
    assert [e["name"] for e in list_entities(fresh_db, "decision", 10, ctx).unwrap()] == ["a"]


def test_a_limit_outside_the_range_is_refused_by_the_gate(fresh_db: SqliteStore, ctx: CallContext) -> None:
    for limit in (0, 5001):
        assert list_entities(fresh_db, None, limit, ctx).failure().code is ErrorCode.BAD_BODY
    assert list_entities(fresh_db, None, 5000, ctx).unwrap() == []


def test_lookup_keeps_the_replaced_history_whole(fresh_db: SqliteStore, ctx: CallContext, tools: Caller) -> None:
    tools.ok("remember", {"name": "a", "type": "note", "observations": ["old"]})
    tools.ok("remember", {"name": "a", "observations": ["new"], "replace": True})
    metadata = get_entity(fresh_db, "a", ctx).unwrap().get("metadata", {})
    assert metadata["replaced_history"][0]["observations"] == ["old"]


def test_neither_listing_nor_lookup_counts_access(fresh_db: SqliteStore, ctx: CallContext, tools: Caller) -> None:
    tools.ok("remember", {"name": "a", "type": "note", "observations": ["x"]})
    get_entity(fresh_db, "a", ctx)
    list_entities(fresh_db, None, 10, ctx)
    assert get_entity(fresh_db, "a", ctx).unwrap().get("access_count") == 0


def test_lookup_of_a_missing_name_is_not_found(fresh_db: SqliteStore, ctx: CallContext) -> None:
    error = get_entity(fresh_db, "ghost", ctx).failure()
    assert error.code is ErrorCode.NOT_FOUND
    assert error.message == 'Entity "ghost" not found'
