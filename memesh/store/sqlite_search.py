"""The SQLite store's keyword search: the FTS5 index ranked by its bm25(), and the frequencies the noise guard reads."""

from __future__ import annotations

from collections.abc import Sequence

from memesh.core.porter import stem
from memesh.core.query import MatchPlan, is_prefix
from memesh.model import Entity, Filters
from memesh.store.reads import Reads
from memesh.store.reads import filter_sql as _filter_sql
from memesh.store.sqlite_base import SqliteBase, _chunks, _marks


class SqliteSearch(SqliteBase, Reads):
    """What recall asks for: the ids it ranks."""

    def search_stats(self, terms: Sequence[str]) -> tuple[int, dict[str, int] | None]:
        """How many memories are stored; the frequencies are left to `doc_freq`, asked only when the noise guard
        reads one (an in-process call costs no round trip, so nothing is gained by reading them early)."""
        return self.count(), None

    def search_rows(self, plan: MatchPlan, filters: Filters, limit: int) -> list[tuple[Entity, float]]:
        """`search`'s matches with their memories (`load`), best first."""
        matches = self.search(plan, filters, limit)
        loaded = {entity.id: entity for entity in self.load([entity_id for entity_id, _ in matches])}
        return [(loaded[entity_id], score) for entity_id, score in matches if entity_id in loaded]

    def search(self, plan: MatchPlan, filters: Filters, limit: int) -> list[tuple[int, float]]:
        """(id, BM25 score) of the matches of the plan's first mode that has any, best first, ties newest first.

        The score is FTS5's bm25() negated, so that higher is better and every match scores above 0.
        """
        for expression in fts5_expressions(plan):
            matches = self._best_matches(expression, filters, limit)
            if matches:
                return matches
        return []

    def _best_matches(self, expression: str, filters: Filters, limit: int) -> list[tuple[int, float]]:
        # Ranking every match joined to its entity row costs one table lookup per match, most of a search's time on
        # a large database. Ranking the index alone and checking the filters on a window of the best gives the same
        # ids whenever that window holds `limit` that pass (the order is the same), or holds every match; otherwise
        # the joined query runs. A tag filter usually passes few of the best matches, so it goes straight there.
        if filters.tag is None:
            window = limit * _SEARCH_WINDOW
            best = [(row[0], -row[1]) for row in self.conn.execute(_RANKED_MATCHES, (expression, window))]
            passing = self._passing([entity_id for entity_id, _ in best], filters)
            kept = [match for match in best if match[0] in passing]
            if len(kept) >= limit or len(best) < window:
                return kept[:limit]
        where, params = _filter_sql(filters)
        sql = (
            f"SELECT e.id, {_BM25} AS bm25_score FROM entities_fts f JOIN entities e ON e.id = f.rowid "
            f"WHERE entities_fts MATCH ? {where} ORDER BY bm25_score, e.id DESC LIMIT ?"
        )
        return [(row[0], -row[1]) for row in self.conn.execute(sql, (expression, *params, limit))]

    def _passing(self, ids: Sequence[int], filters: Filters) -> set[int]:
        """Which of these ids are stored memories that pass the filters."""
        where, params = _filter_sql(filters)
        passing: set[int] = set()
        for chunk in _chunks(list(ids)):
            sql = f"SELECT e.id FROM entities e WHERE e.id IN ({_marks(chunk)}) {where}"
            passing.update(row[0] for row in self.conn.execute(sql, (*chunk, *params)))
        return passing

    def doc_freq(self, terms: Sequence[str]) -> dict[str, int]:
        """For each term, in how many indexed memories it occurs (counted by its stem, the form the index holds)."""
        freq: dict[str, int] = {}
        for term in terms:
            row = self.conn.execute("SELECT doc FROM entities_fts_vocab WHERE term = ?", (stem(term),)).fetchone()
            if row:
                freq[term] = int(row[0])
        return freq


def quote(term: str) -> str:
    """One FTS5 string token: the term in double quotes with inner quotes doubled, NUL removed; a prefix term
    (a lone CJK character) as a prefix query."""
    body = term.replace("\x00", "").replace('"', '""')
    return f'"{body}"*' if is_prefix(body) else f'"{body}"'


def fts5_expressions(plan: MatchPlan) -> tuple[str, ...]:
    """The plan's modes as FTS5 MATCH expressions, in the order they are tried."""
    quoted = [quote(term) for term in plan.terms]
    return tuple((" AND " if mode == "all" else " OR ").join(quoted) for mode in plan.modes)


# BM25 column weights: a term in the name or title says more about what a memory is than one in its body.
NAME_WEIGHT = 2.0
TITLE_WEIGHT = 2.0
OBSERVATION_WEIGHT = 1.0
_BM25 = f"bm25(entities_fts, {NAME_WEIGHT}, {TITLE_WEIGHT}, {OBSERVATION_WEIGHT})"
# The best matches by the index alone, in exactly the joined query's order (e.id is the index's rowid).
_RANKED_MATCHES = (
    f"SELECT rowid, {_BM25} AS bm25_score FROM entities_fts WHERE entities_fts MATCH ? "
    "ORDER BY bm25_score, rowid DESC LIMIT ?"
)
# How many times `limit` best matches a search ranks before checking the filters: room for archived memories.
_SEARCH_WINDOW = 3
