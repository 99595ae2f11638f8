"""The faster search paths return exactly what the joined queries they replace return."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from memesh.model import Filters
from memesh.ops.recall import LazyDocFreq
from memesh.store.reads import filter_sql as _filter_sql
from memesh.store.sqlite import SqliteStore
from memesh.store.sqlite_search import _BM25
from tests.calls import match
from tests.conftest import Caller


def joined_search(store: SqliteStore, expression: str, filters: Filters, limit: int) -> list[tuple[int, float]]:
    """The search as one joined query, filters applied to every match (the reference): (id, negated bm25)."""
    where, params = _filter_sql(filters)
    sql = (
        f"SELECT e.id, -{_BM25} FROM entities_fts f JOIN entities e ON e.id = f.rowid "
        f"WHERE entities_fts MATCH ? {where} ORDER BY {_BM25}, e.id DESC LIMIT ?"
    )
    return [(row[0], row[1]) for row in store.conn.execute(sql, (expression, *params, limit))]


def joined_recent(store: SqliteStore, filters: Filters, limit: int) -> list[int]:
    where, params = _filter_sql(filters)
    sql = f"SELECT e.id FROM entities e WHERE 1 = 1 {where} ORDER BY e.id DESC LIMIT ?"
    return [row[0] for row in store.conn.execute(sql, (*params, limit))]


def fill(tools: Caller, count: int) -> None:
    """`count` memories that all mention kiwi, the lower-numbered ones more often (so they rank first)."""
    for i in range(count):
        text = " ".join(["kiwi"] * (count - i) + ["filler"] * i)
        tags = ["project:p"] if i % 3 == 0 else []
        namespace = "team" if i % 4 == 0 else "personal"
        tools.ok(
            "remember", {"name": f"m{i}", "type": "note", "observations": [text], "tags": tags, "namespace": namespace}
        )


@pytest.mark.parametrize("archived", [[], [0, 1, 2], list(range(0, 40, 2)), list(range(38))])
@pytest.mark.parametrize("limit", [1, 3, 20])
@pytest.mark.sqlite_only
def test_search_matches_the_joined_query_whatever_is_archived(
    fresh_db: SqliteStore, tools: Caller, archived: Sequence[int], limit: int
) -> None:
    fill(tools, 40)
    for i in archived:
        tools.ok("forget", {"name": f"m{i}"})
    for filters in (Filters(), Filters(include_archived=True), Filters(namespace="team"), Filters(tag="project:p")):
        assert fresh_db.search(match("kiwi"), filters, limit) == joined_search(fresh_db, '"kiwi"', filters, limit)


@pytest.mark.sqlite_only
def test_search_with_fewer_matches_than_the_window_returns_them_all(fresh_db: SqliteStore, tools: Caller) -> None:
    fill(tools, 5)
    tools.ok("forget", {"name": "m0"})
    assert fresh_db.search(match("kiwi"), Filters(), 20) == joined_search(fresh_db, '"kiwi"', Filters(), 20)
    assert len(fresh_db.search(match("kiwi"), Filters(), 20)) == 4


@pytest.mark.parametrize("limit", [1, 5, 50])
def test_listing_by_tag_matches_the_joined_query(fresh_db: SqliteStore, tools: Caller, limit: int) -> None:
    fill(tools, 30)
    for i in (3, 9, 10):
        tools.ok("forget", {"name": f"m{i}"})
    for filters in (
        Filters(tag="project:p"),
        Filters(tag="project:p", include_archived=True),
        Filters(tag="project:p", namespace="team"),
        Filters(tag="project:none"),
    ):
        assert fresh_db.recent(filters, limit) == joined_recent(fresh_db, filters, limit)


class CountingStore:
    """A store that only counts how often document frequencies are asked for."""

    def __init__(self) -> None:
        self.asked = 0

    def doc_freq(self, terms: Sequence[str]) -> dict[str, int]:
        self.asked += 1
        return dict.fromkeys(terms, 1)


def test_document_frequencies_are_asked_for_once_and_only_when_read() -> None:
    store = CountingStore()
    freq = LazyDocFreq(store, ["a", "b"])  # type: ignore[arg-type]
    assert store.asked == 0
    assert freq.get("a") == 1
    assert freq.get("zzz", 0) == 0
    assert dict(freq) == {"a": 1, "b": 1}
    assert store.asked == 1


@pytest.mark.sqlite_only
def test_a_one_term_recall_returns_the_best_matches_in_order(fresh_db: SqliteStore, tools: Caller) -> None:
    fill(tools, 30)
    tools.ok("forget", {"name": "m1"})
    best = [entity_id for entity_id, _ in joined_search(fresh_db, '"kiwi"', Filters(), 5)]
    expected = [entity.name for entity in fresh_db.load(best)]
    found = tools.ok("recall", {"query": "kiwi", "limit": 5})["entities"]
    assert [e["name"] for e in found] == expected
    assert "m1" not in expected
