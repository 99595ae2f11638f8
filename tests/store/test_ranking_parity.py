"""Recall ranks the same on both engines: the PostgreSQL store's BM25 is FTS5's, to the last bit, ties included."""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from memesh.core.query import MatchPlan, plan_match
from memesh.core.terms import query_terms
from memesh.model import Entity, EntityWrite, Filters
from memesh.store.postgres import PostgresStore, open_postgres
from memesh.store.reads import Reads
from memesh.store.sqlite import SqliteStore, open_store

_TEXT = (
    "camp camping camped lake lakes support supporting supported cache caching token tokens deploy deployed "
    "review reviewer rotate rotation café naïve résumé über straße jwt oauth pkce sqlite postgres index"
)
WORDS = tuple(_TEXT.split(" "))
CJK = ("認證方式", "資料庫", "部署", "快取", "認", "東京都", "データベース", "한국어")


def _corpus(seed: int, size: int) -> list[EntityWrite]:
    rng = random.Random(seed)
    writes = []
    for n in range(size):

        def text(count: int) -> str:
            return " ".join(rng.choice(WORDS) if rng.random() < 0.85 else rng.choice(CJK) for _ in range(count))

        observations = tuple(text(rng.randint(1, 12)) for _ in range(rng.randint(0, 4)))
        title = text(rng.randint(1, 4)) if rng.random() < 0.6 else None
        writes.append(
            EntityWrite(
                entity_id=None,
                name=f"{rng.choice(WORDS)}-{n}",
                type=rng.choice(("fact", "decision", "note")),
                title=title,
                namespace=rng.choice(("personal", "team", "global")),
                status="archived" if rng.random() < 0.15 else "active",
                metadata={},
                observations=observations,
                tags=tuple(rng.sample(("project:a", "project:b", "auth", "db"), rng.randint(0, 2))),
            )
        )
    return writes


def _queries(seed: int, count: int) -> list[str]:
    rng = random.Random(seed)
    queries = [*WORDS, *CJK, "認", "部", "camping lake", "deploy review rotate", "lake 認證 token cache"]
    for _ in range(count):
        queries.append(" ".join(rng.choice((*WORDS, *CJK)) for _ in range(rng.randint(1, 5))))
    return queries


def _fill(store: SqliteStore | PostgresStore, writes: list[EntityWrite]) -> None:
    with store.transaction():
        for write in writes:
            store.save(write)


def _timeless(entity: Entity) -> Entity:
    """The memory without the time it was stored (the two engines stored it at different moments)."""
    return replace(entity, created_at="")


def _plan(store: SqliteStore, query: str) -> MatchPlan | None:
    terms = query_terms(query)
    return plan_match(query, store.doc_freq(terms), store.count()) if terms else None


def test_both_engines_rank_every_query_alike_scores_and_ties_included(tmp_path: Path, pg_url: str) -> None:
    writes = _corpus(seed=7, size=300)
    sqlite, pg = open_store(tmp_path / "parity.db"), open_postgres(pg_url)
    try:
        _fill(sqlite, writes)
        _fill(pg, writes)
        assert pg.count() == sqlite.count()
        filters = (
            Filters(),
            Filters(include_archived=True),
            Filters(namespace="team"),
            Filters(tag="auth"),
            Filters(tag="project:a", namespace="personal"),
        )
        compared = 0
        for index, query in enumerate(_queries(seed=11, count=150)):
            plan = _plan(sqlite, query)
            if plan is None:
                continue
            assert pg.doc_freq(plan.terms) == sqlite.doc_freq(plan.terms), query
            for limit in (5, 40):
                chosen = filters[index % len(filters)]
                expected = sqlite.search(plan, chosen, limit)
                assert pg.search(plan, chosen, limit) == expected, (query, chosen, limit)
                compared += bool(expected)
                if limit == 5:  # the memories read with the ranking: the same scores, the memories load() gives
                    rows = pg.search_rows(plan, chosen, limit)
                    assert [(entity.id, score) for entity, score in rows] == expected, (query, chosen)
                    assert [entity for entity, _ in rows] == Reads.load(pg, [entity_id for entity_id, _ in expected])
                    on_sqlite = sqlite.search_rows(plan, chosen, limit)
                    assert [(_timeless(entity), score) for entity, score in on_sqlite] == [
                        (_timeless(entity), score) for entity, score in rows
                    ]
        assert compared > 200  # most queries found something: the comparison is not of empty lists
    finally:
        sqlite.close()
        pg.close()


def test_memories_that_tie_come_newest_first_on_both(tmp_path: Path, pg_url: str) -> None:
    same = [
        EntityWrite(None, f"twin-{n}", "fact", None, "personal", "active", {}, ("shared words here",), ())
        for n in range(6)
    ]
    sqlite, pg = open_store(tmp_path / "ties.db"), open_postgres(pg_url)
    try:
        _fill(sqlite, same)
        _fill(pg, same)
        plan = _plan(sqlite, "shared words")
        assert plan is not None
        expected = sqlite.search(plan, Filters(), 10)
        assert [entity_id for entity_id, _ in expected] == [6, 5, 4, 3, 2, 1]
        assert pg.search(plan, Filters(), 10) == expected
    finally:
        sqlite.close()
        pg.close()


def test_a_writer_ranks_its_own_uncommitted_memories_as_sqlite_does(tmp_path: Path, pg_url: str) -> None:
    """n(p) and the counts come from the counters and this transaction's deltas, not yet folded (PostgreSQL folds
    them at commit): inside the transaction that wrote them, the new memories rank as on SQLite."""
    writes = _corpus(seed=5, size=120)
    sqlite, pg = open_store(tmp_path / "open.db"), open_postgres(pg_url)
    try:
        _fill(sqlite, writes[:60])
        _fill(pg, writes[:60])
        queries = [q for q in _queries(seed=13, count=40) if _plan(sqlite, q) is not None]
        with sqlite.transaction(), pg.transaction():
            for write in writes[60:]:
                sqlite.save(write)
                pg.save(write)
            for query in queries:
                plan = _plan(sqlite, query)
                assert plan is not None
                assert pg.search(plan, Filters(), 40) == sqlite.search(plan, Filters(), 40), query
    finally:
        sqlite.close()
        pg.close()


def test_a_memory_loads_whole_in_one_statement_as_the_shared_load_reads_it(tmp_path: Path, pg_url: str) -> None:
    writes = _corpus(seed=3, size=40)
    sqlite, pg = open_store(tmp_path / "load.db"), open_postgres(pg_url)
    try:
        for store in (sqlite, pg):
            _fill(store, writes)
            with store.transaction():
                for n in range(0, 40, 3):  # relations in an order that is not the targets' order
                    store.create_relation(writes[n].name, writes[(n * 7 + 5) % 40].name, "relates_to")
                    store.create_relation(writes[n].name, writes[(n * 11 + 1) % 40].name, "depends_on")
                store.touch([1, 2, 3], "2026-01-02T03:04:05Z")
        ids = [40, 3, 999, 1, 3, *range(4, 40)]  # any order, a missing id, a repeated one
        whole = pg.load(ids)
        assert whole == Reads.load(pg, ids)  # the shared load's four statements
        assert [_timeless(entity) for entity in whole] == [_timeless(entity) for entity in sqlite.load(ids)]
        assert any(entity.relations for entity in whole) and any(entity.tags for entity in whole)
        assert pg.load([]) == []
    finally:
        sqlite.close()
        pg.close()


def test_the_newest_memories_read_whole_in_one_statement_as_recent_then_load(tmp_path: Path, pg_url: str) -> None:
    """recall without a query: PostgreSQL reads the newest memories whole with the choice (one statement), exactly
    what the shared `recent` then `load` give, on every filter, the tag's index walk included."""
    pg = open_postgres(pg_url)
    try:
        _fill(pg, _corpus(seed=9, size=80))
        for chosen in (
            Filters(),
            Filters(include_archived=True),
            Filters(namespace="team"),
            Filters(tag="auth"),
            Filters(tag="project:a", namespace="personal", include_archived=True),
            Filters(tag="no-such-tag"),
        ):
            for limit in (1, 7, 200):
                expected = Reads.load(pg, Reads.recent(pg, chosen, limit))
                assert pg.recent_rows(chosen, limit) == expected, (chosen, limit)
                assert expected or chosen.tag == "no-such-tag"
    finally:
        pg.close()


def test_conflicts_read_with_the_memories_are_the_shared_querys_and_never_stale(tmp_path: Path, pg_url: str) -> None:
    """PostgreSQL reads the contradicts relations among the memories it reads whole in the same statement, and
    answers `conflicts` for some of them from that when nothing ran since: the same pairs in the same order (oldest
    relation first) as `Reads.conflicts` asked of another connection; with any statement in between, the query."""
    names = [f"claim-{n}" for n in range(8)]
    writes = [
        EntityWrite(None, name, "fact", None, "personal", "active", {}, (f"shared word {name}",), ("t:x",))
        for name in names
    ]
    pg, other = open_postgres(pg_url), open_postgres(pg_url)
    try:
        _fill(pg, writes)
        with pg.transaction():
            for source, target, kind in (
                (3, 0, "contradicts"),
                (0, 1, "contradicts"),
                (5, 4, "contradicts"),
                (1, 3, "contradicts"),
                (2, 6, "relates_to"),
                (7, 0, "contradicts"),
            ):
                pg.create_relation(names[source], names[target], kind)
        planner = open_store(tmp_path / "plan.db")
        plan = _plan(planner, "shared word")
        planner.close()
        assert plan is not None
        readers: dict[str, Callable[[], list[Entity]]] = {
            "load": lambda: pg.load([pg.entity_id(name) or 0 for name in names[:6]]),
            "search_rows": lambda: [entity for entity, _ in pg.search_rows(plan, Filters(), 8)],
            "recent_rows": lambda: pg.recent_rows(Filters(), 8),
            "recent_rows by tag": lambda: pg.recent_rows(Filters(tag="t:x"), 5),
        }
        for reader, read in readers.items():
            loaded = [entity.name for entity in read()]
            for asked in (loaded, loaded[:4], loaded[::2], loaded[:1], [*loaded[:3], "claim-none"]):
                expected = Reads.conflicts(other, asked)
                read()
                uses = pg.conn.uses
                assert pg.conflicts(asked) == expected, (reader, asked)
                subset = set(asked) <= set(loaded)
                assert (pg.conn.uses == uses) is (subset or len(asked) < 2), (reader, asked)  # no statement
                read()
                pg.count()  # a statement in between: the conflicts are asked of the database again
                assert pg.conflicts(asked) == expected, (reader, asked)
        assert Reads.conflicts(other, names) == [
            ("claim-3", "claim-0"),
            ("claim-0", "claim-1"),
            ("claim-5", "claim-4"),
            ("claim-1", "claim-3"),
            ("claim-7", "claim-0"),
        ]
    finally:
        pg.close()
        other.close()
