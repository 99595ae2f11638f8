"""The PostgreSQL store's keyword search: FTS5's bm25() computed in SQL from the postings table.

Recall must rank the same on both engines, so this is FTS5's formula to the operation (fts5_aux.c,
fts5Bm25Function), not PostgreSQL's ts_rank (which loses 1 to 13 points of recall@5 on LoCoMo):

    idf(p)    = ln((N - n(p) + 0.5) / (n(p) + 0.5)), or 1e-6 where that is not above 0
    f(p, D)   = the phrase's occurrences in D, each weighted by its column (name 2, title 2, observations 1)
    score(D)  = sum over the query's phrases, in query order, of
                idf(p) * (f * (k1 + 1)) / (f + k1 * ((1 - b) + (b * |D|) / avgdl)),   k1 = 1.2, b = 0.75

with N the memories indexed, n(p) the memories holding the phrase (whatever the filters), |D| a memory's tokens in
all columns and avgdl the mean of |D|. Each step is a float8 operation in the same order as FTS5's doubles (the sum
too: `sum(... ORDER BY phrase)`), so equal scores tie on both engines and ties go newest first on both.

Recall reads the memories it ranks with the ranking itself (`search_rows`: one statement, one round trip), and a
memory is read whole in one statement (`load`: its observations, tags and relations as arrays), where the shared
`Reads.load` sends four.

A query term is a phrase of the tokens FTS5 makes of it (`sqlite_tokens.phrase`): nearly always one token, looked
up by range in the postings' primary key ([t, t + U+0001) for a token, [x, x + 1) for a lone CJK character that
matches as a prefix). A term of several tokens must match them side by side, which postings without positions
cannot tell: such a (rare) query is ranked in Python from the memories that hold all the tokens, by the same formula.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

from memesh.core.porter import stem
from memesh.core.query import MatchPlan, Mode, is_prefix
from memesh.model import Entity, Filters, Relation
from memesh.records import dataclass
from memesh.store.postgres_base import PostgresBase
from memesh.store.reads import ENTITY_COLUMNS, Reads, entity_of, filter_sql
from memesh.store.sql import _chunks, _marks
from memesh.store.sqlite_search import NAME_WEIGHT, OBSERVATION_WEIGHT, TITLE_WEIGHT
from memesh.store.sqlite_tokens import phrase, positions
from memesh.store.writes import index_columns

K1 = 1.2
B = 0.75
WEIGHTS = (NAME_WEIGHT, TITLE_WEIGHT, OBSERVATION_WEIGHT)
_WEIGHTED = f"{int(NAME_WEIGHT)} * p.name_tf + {int(TITLE_WEIGHT)} * p.title_tf + {int(OBSERVATION_WEIGHT)} * p.body_tf"
_TERM = "CASE WHEN v <= 0 THEN 1e-6::float8 ELSE v END"  # FTS5's floor for a phrase in half the memories or more


def _counter(name: str) -> str:
    """memesh_counter(name) written out in the statement: the function's body, which PostgreSQL runs as a call of
    its own (0.1 ms each) rather than inline."""
    return (
        f"((SELECT value FROM counters WHERE name = '{name}') "
        f"+ COALESCE((SELECT sum(delta) FROM counter_deltas WHERE name = '{name}'), 0)::bigint)"
    )


_STATS = f"""stats AS (
    SELECT {_counter("search_docs")}::float8 AS n, {_counter("search_tokens")}::float8 AS tokens
)"""
# A phrase's term of the score, from f (its weighted occurrences) and d (the memory's length), as float8.
_BM25 = (
    f"ph.idf * (({{f}} * ({K1}::float8 + 1.0::float8)) / ({{f}} + {K1}::float8 * ((1::float8 - {B}::float8) "
    f"+ ({B}::float8 * {{d}}) / (s.tokens / s.n))))"
)
# (phrase index, low, high) ranges → the matches and their scores. Parameters: the three arrays, the number of
# phrases that must all occur (0: any may), then each query's own. `{order}`: the phrases summed in query order, as
# FTS5 adds them (float8 addition is not associative); empty for one phrase, whose sum has one term (the ordered
# aggregate sorted every match: a fifth of a frequent word's server time).
_SCORED = f"""
WITH q(i, lo, hi) AS (SELECT * FROM unnest(?::int[], ?::text[], ?::text[])),
{_STATS},
hits AS (
    SELECT q.i, p.entity_id, sum({_WEIGHTED})::float8 AS f, max(p.doc_tokens)::float8 AS d
    FROM q JOIN search_postings p ON p.term >= q.lo AND p.term < q.hi
    GROUP BY q.i, p.entity_id
),
phrases AS (
    SELECT i, {_TERM} AS idf FROM (
        SELECT h.i, ln(((s.n - count(*))::float8 + 0.5::float8) / (count(*)::float8 + 0.5::float8)) AS v
        FROM hits h CROSS JOIN stats s GROUP BY h.i, s.n
    ) c
),
scored AS (
    SELECT h.entity_id, sum({_BM25.format(f="h.f", d="h.d")} {{order}}) AS score
    FROM hits h JOIN phrases ph ON ph.i = h.i CROSS JOIN stats s
    GROUP BY h.entity_id
    HAVING ?::int = 0 OR count(*) = ?::int
)"""
# The phrases when each is one exact token (all but a lone CJK character's prefix), with n(p) from `search_terms`
# (plus this transaction's deltas): the number of the token's postings, which is what counting the hits gave. A
# token's postings are one per memory (the primary key), so f and |D| are the posting's own. Parameters: the phrase
# indexes and the tokens.
_EXACT_PHRASES = f"""
WITH q(i, term) AS (SELECT * FROM unnest(?::int[], ?::text[])),
{_STATS},
phrases AS MATERIALIZED (
    SELECT i, term, docs, {_TERM} AS idf FROM (
        SELECT q.i, q.term, c.docs,
            ln(((s.n - c.docs)::float8 + 0.5::float8) / (c.docs::float8 + 0.5::float8)) AS v
        FROM q CROSS JOIN stats s CROSS JOIN LATERAL (
            SELECT COALESCE((SELECT t.docs FROM search_terms t WHERE t.term = q.term), 0)::bigint
                + COALESCE((SELECT sum(x.delta) FROM search_term_deltas x WHERE x.term = q.term), 0)::bigint AS docs
        ) c
    ) v
)"""
_POSTING_TERM = _BM25.format(f=f"({_WEIGHTED})::float8", d="p.doc_tokens::float8")


@functools.cache
def _exact_scored(count: int, every: bool) -> str:
    """`scored` for `count` exact tokens (`every`: a memory must hold them all).

    One token: each matching memory's score is its one posting's term (a sum of one term is that term), with no
    aggregation. Several: each phrase's term picked out by a FILTER and added in query order, a missing phrase as
    0.0 — exactly FTS5's loop, which adds every phrase's term (0 where the phrase is absent) in order from 0.0, and
    no ordered aggregate (PostgreSQL sorts each group's rows for `sum(… ORDER BY …)`). All of them: only the memories
    holding the rarest token are looked at, each other token's posting read by its key."""
    if count == 1:
        return f"""{_EXACT_PHRASES},
scored AS (
    SELECT p.entity_id, {_POSTING_TERM} AS score
    FROM phrases ph JOIN search_postings p ON p.term = ph.term CROSS JOIN stats s
)"""
    parts = [f"sum({_POSTING_TERM}) FILTER (WHERE ph.i = {i}) AS c{i}" for i in range(count)]
    total = "COALESCE(c0, 0::float8)"
    for i in range(1, count):
        total = f"({total} + COALESCE(c{i}, 0::float8))"
    if every:
        source = """(SELECT r.entity_id FROM search_postings r
            WHERE r.term = (SELECT term FROM phrases ORDER BY docs, i LIMIT 1)) rare
        CROSS JOIN phrases ph JOIN search_postings p ON p.term = ph.term AND p.entity_id = rare.entity_id"""
        having = f"HAVING count(*) = {count}"
    else:
        source = "phrases ph JOIN search_postings p ON p.term = ph.term"
        having = ""
    return f"""{_EXACT_PHRASES},
scored AS (
    SELECT entity_id, {total} AS score FROM (
        SELECT p.entity_id, {", ".join(parts)}
        FROM {source} CROSS JOIN stats s
        GROUP BY p.entity_id {having}
    ) g
)"""


# The best `limit` that pass the filters, ties newest first. Then: the filters' parameters, the limit.
_RANKED = """{scored}
SELECT sc.entity_id, sc.score FROM scored sc JOIN entities e ON e.id = sc.entity_id
WHERE 1 = 1 {where}
ORDER BY sc.score DESC, sc.entity_id DESC
LIMIT ?
"""
# As SQLite's search does it (sqlite_search._best_matches): the best `window` matches ranked from the index alone,
# then those that pass the filters. The planner cannot know how many memories a term matches, and joined every
# memory (a scan of the table) to a few hundred matches; a window of the best is joined row by row. Its answer is
# the full query's whenever the window holds `limit` that pass, or holds every match: `held` (first column, on
# every row, with the matches' columns NULL when none passes) says how many it held. Then: the window size, the
# filters' parameters, the limit.
_WINDOW = """{scored},
top AS MATERIALIZED (SELECT entity_id, score FROM scored ORDER BY score DESC, entity_id DESC LIMIT ?),
passing AS (
    SELECT top.entity_id, top.score FROM top JOIN entities e ON e.id = top.entity_id
    WHERE 1 = 1 {where}
    ORDER BY top.score DESC, top.entity_id DESC
    LIMIT ?
)
SELECT c.held, w.* FROM (SELECT count(*) AS held FROM top) c LEFT JOIN LATERAL ({select}) w ON true
ORDER BY w.score DESC, w.entity_id DESC
"""
_SEARCH_WINDOW = 3  # how many times `limit` best matches are ranked before the filters are checked (as SQLite's)

# A memory whole, as `Reads.load` reads it with four statements: its row, then its observations, tags and outgoing
# relations (target name and type), each in the order of their ids; then the contradicts relations between two of
# the memories the statement returns (`{chosen}`: their ids), as `Reads.conflicts` lists them — (source, target),
# oldest first — the same on every row (computed once: it does not depend on the row). From `e`, the entities row.
_WHOLE = f"""
SELECT {", ".join("e." + column.strip() for column in ENTITY_COLUMNS.split(","))},
    ARRAY(SELECT o.content FROM observations o WHERE o.entity_id = e.id ORDER BY o.id) AS observation_list,
    ARRAY(SELECT t.tag FROM tags t WHERE t.entity_id = e.id ORDER BY t.id) AS tag_list,
    ARRAY(SELECT x.name FROM relations r JOIN entities x ON x.id = r.to_entity_id
        WHERE r.from_entity_id = e.id ORDER BY r.id) AS target_list,
    ARRAY(SELECT r.relation_type FROM relations r JOIN entities x ON x.id = r.to_entity_id
        WHERE r.from_entity_id = e.id ORDER BY r.id) AS kind_list,
    ARRAY(SELECT ARRAY[f.name, t.name] FROM relations r JOIN entities f ON f.id = r.from_entity_id
        JOIN entities t ON t.id = r.to_entity_id WHERE r.relation_type = 'contradicts'
        AND r.from_entity_id IN ({{chosen}}) AND r.to_entity_id IN ({{chosen}}) ORDER BY r.id) AS conflict_list"""
_CLASH = 17  # the column of conflict_list
# The memories with these ids (a parameter), each once.
_LOAD = f"""WITH chosen AS (SELECT DISTINCT unnest(?::bigint[]) AS entity_id)
{_WHOLE.format(chosen="SELECT entity_id FROM chosen")} FROM chosen JOIN entities e ON e.id = chosen.entity_id"""
# The rows `_RANKED` or `_WINDOW` chose, as ids or as the memories whole, with their scores, best first.
_IDS_OF = "SELECT passing.entity_id, passing.score FROM passing"
_WHOLE_OF = (
    f"{_WHOLE.format(chosen='SELECT entity_id FROM passing')}, passing.entity_id, passing.score "
    "FROM passing JOIN entities e ON e.id = passing.entity_id"
)
_RANKED_ROWS = f"""WITH passing AS ({{ranked}})
{_WHOLE_OF}
ORDER BY passing.score DESC, passing.entity_id DESC
"""
# The newest memories that pass the filters, whole (`{newest}`: their ids, newest first, limited).
_RECENT_ROWS = f"""WITH passing AS ({{newest}})
{_WHOLE.format(chosen="SELECT entity_id FROM passing")} FROM passing JOIN entities e ON e.id = passing.entity_id
ORDER BY passing.entity_id DESC
"""


@dataclass(frozen=True)
class _Preloaded:
    """The contradicts relations among the memories a statement read whole, and the connection's use count right
    after it: `conflicts` for some of those memories, asked before anything else ran, is answered from these."""

    uses: int
    names: frozenset[str]
    pairs: tuple[tuple[str, str], ...]


def _entity(row: Any) -> Entity:
    """The memory of one row of _WHOLE."""
    entity = entity_of(row)
    entity.observations = list(row[13])
    entity.tags = list(row[14])
    entity.relations = [Relation(entity.name, target, kind) for target, kind in zip(row[15], row[16], strict=True)]
    return entity


def _after(text: str) -> str:
    """The least text greater than every text that begins with `text` (code point order, as COLLATE "C")."""
    return text[:-1] + chr(ord(text[-1]) + 1)


class PostgresSearch(PostgresBase, Reads):
    """What recall asks for: the ids it ranks, and the frequencies the noise guard reads."""

    def doc_freq(self, terms: Sequence[str]) -> dict[str, int]:
        """For each term, in how many indexed memories it occurs (counted by its stem, the form the index holds)."""
        stems = {term: stem(term) for term in terms}
        wanted = list(set(stems.values()))
        rows = self.conn.execute(
            "SELECT term, sum(docs) FROM (SELECT term, docs FROM search_terms WHERE term = ANY(?::text[]) "
            "UNION ALL SELECT term, delta FROM search_term_deltas WHERE term = ANY(?::text[])) counted "
            "GROUP BY term HAVING sum(docs) > 0",
            (wanted, wanted),
        )
        docs = {str(term): int(count) for term, count in rows}
        return {term: docs[stemmed] for term, stemmed in stems.items() if stemmed in docs}

    def search_stats(self, terms: Sequence[str]) -> tuple[int, dict[str, int] | None]:
        """How many memories are stored and, read in the same statement, `doc_freq(terms)`: what the noise guard
        reads, in one round trip."""
        stems = {term: stem(term) for term in terms}
        wanted = list(set(stems.values()))
        row = self.conn.execute(
            f"SELECT {_counter('entities')}, ARRAY(SELECT ARRAY[term, sum(docs)::text] FROM ("
            "SELECT term, docs FROM search_terms WHERE term = ANY(?::text[]) "
            "UNION ALL SELECT term, delta FROM search_term_deltas WHERE term = ANY(?::text[])) counted "
            "GROUP BY term HAVING sum(docs) > 0)",
            (wanted, wanted),
        ).fetchone()
        docs = {str(term): int(count) for term, count in row[1]}
        return int(row[0] or 0), {term: docs[stemmed] for term, stemmed in stems.items() if stemmed in docs}

    def load(self, ids: Sequence[int]) -> list[Entity]:
        """The memories with these ids, in the order given (ids that do not exist are skipped): one statement."""
        if not ids:
            return []
        by_id = {entity.id: entity for entity in self._whole(self.conn.execute(_LOAD, (list(ids),)).fetchall())}
        return [by_id[entity_id] for entity_id in ids if entity_id in by_id]

    def recent_rows(self, filters: Filters, limit: int) -> list[Entity]:
        """The newest memories that pass the filters, whole, in one statement (`Reads.recent` then `load`)."""
        newest, params = self.newest_sql(filters)
        rows = self.conn.execute(_RECENT_ROWS.format(newest=newest), (*params, limit)).fetchall()
        return self._whole(rows)

    def conflicts(self, names: Sequence[str]) -> list[tuple[str, str]]:
        """As `Reads.conflicts`; answered from the statement that read these memories whole when nothing ran since
        (recall asks right after reading them: one round trip fewer)."""
        preloaded, self._preloaded = self._preloaded, None
        if len(names) < 2:
            return []
        wanted = set(names)
        if preloaded is not None and preloaded.uses == self.conn.uses and wanted <= preloaded.names:
            return [(source, target) for source, target in preloaded.pairs if source in wanted and target in wanted]
        return super().conflicts(names)

    _preloaded: _Preloaded | None = None

    def _whole(self, rows: Sequence[Any]) -> list[Entity]:
        """The memories of rows of `_WHOLE`, noting the conflicts they carry for `conflicts`."""
        entities = [_entity(row) for row in rows]
        pairs = tuple((str(pair[0]), str(pair[1])) for pair in rows[0][_CLASH]) if rows else ()
        self._preloaded = _Preloaded(self.conn.uses, frozenset(entity.name for entity in entities), pairs)
        return entities

    def search(self, plan: MatchPlan, filters: Filters, limit: int) -> list[tuple[int, float]]:
        """(id, BM25 score) of the matches of the plan's first mode that has any, best first, ties newest first."""
        for mode in plan.modes:
            matches = self._ranked(plan.terms, mode, filters, limit, whole=False)
            if matches:
                return matches
        return []

    def search_rows(self, plan: MatchPlan, filters: Filters, limit: int) -> list[tuple[Entity, float]]:
        """`search`'s matches with their memories, read with the ranking (one statement per mode tried)."""
        for mode in plan.modes:
            matches = self._ranked(plan.terms, mode, filters, limit, whole=True)
            if matches:
                return matches
        return []

    def _ranked(
        self, terms: Sequence[str], mode: Mode, filters: Filters, limit: int, *, whole: bool
    ) -> list[tuple[Any, float]]:
        """The best matches, as ids or (`whole`) as the memories themselves, with their scores."""
        phrases = [(phrase(term), is_prefix(term)) for term in terms]
        if mode == "all" and any(not tokens for tokens, _ in phrases):
            return []  # FTS5: a phrase of no tokens matches nothing, so neither does the AND of it
        phrases = [(tokens, prefix) for tokens, prefix in phrases if tokens]
        if not phrases:
            return []
        required = len(phrases) if mode == "all" else 0
        if any(len(tokens) > 1 for tokens, _ in phrases):
            ranked = self._ranked_in_python(phrases, required, filters, limit)
            if not whole:
                return list(ranked)
            loaded = {entity.id: entity for entity in self.load([entity_id for entity_id, _ in ranked])}
            return [(loaded[entity_id], score) for entity_id, score in ranked if entity_id in loaded]
        lows = [tokens[0] for tokens, _ in phrases]
        where, params = filter_sql(filters)
        order = "ORDER BY ph.i" if len(lows) > 1 else ""
        scored: str
        ranges: tuple[Any, ...]
        if any(prefix for _, prefix in phrases):
            highs = [_after(low) if prefix else low + "\x01" for low, (_, prefix) in zip(lows, phrases, strict=True)]
            scored, ranges = _SCORED, (list(range(len(lows))), lows, highs, required, required)
        else:
            scored, ranges = _exact_scored(len(lows), required > 0), (list(range(len(lows))), lows)
        scored = scored.format(order=order)
        if filters.tag is None:  # a tag passes few of the best matches: straight to the joined query, as on SQLite
            window = limit * _SEARCH_WINDOW
            sql = _WINDOW.format(scored=scored, where=where, select=_WHOLE_OF if whole else _IDS_OF)
            rows = self.conn.execute(sql, (*ranges, window, *params, limit)).fetchall()
            held = int(rows[0][0])
            found = [row[1:] for row in rows if row[-1] is not None]
            if len(found) >= limit or held < window:
                if whole:
                    return list(zip(self._whole(found), [float(row[-1]) for row in found], strict=True))
                return [(int(row[0]), float(row[-1])) for row in found]
        joined = _RANKED.format(scored=scored, where=where)
        if whole:
            rows = self.conn.execute(_RANKED_ROWS.format(ranked=joined), (*ranges, *params, limit)).fetchall()
            return list(zip(self._whole(rows), [float(row[-1]) for row in rows], strict=True))
        rows = self.conn.execute(joined, (*ranges, *params, limit)).fetchall()
        return [(int(entity_id), float(score)) for entity_id, score in rows]

    # --- phrases of several tokens ---------------------------------------------------------------------------

    def _ranked_in_python(
        self, phrases: Sequence[tuple[tuple[str, ...], bool]], required: int, filters: Filters, limit: int
    ) -> list[tuple[int, float]]:
        freq = [self._phrase_freq(tokens, prefix) for tokens, prefix in phrases]  # per phrase: {id: (f, |D|)}
        n, tokens = float(self._counter("search_docs")), float(self._counter("search_tokens"))
        idf = []
        for hits in freq:
            v = _ln((n - len(hits) + 0.5) / (len(hits) + 0.5))
            idf.append(1e-6 if v <= 0.0 else v)
        found = {entity_id for hits in freq for entity_id in hits}
        if required:
            found = {entity_id for entity_id in found if all(entity_id in hits for hits in freq)}
        scores: dict[int, float] = {}
        for entity_id in self._passing(sorted(found), filters):
            score = 0.0
            for weight, hits in zip(idf, freq, strict=True):
                if entity_id in hits:
                    f, d = hits[entity_id]
                    score += weight * ((f * (K1 + 1.0)) / (f + K1 * ((1 - B) + (B * d) / (tokens / n))))
            scores[entity_id] = score
        ranked = sorted(scores.items(), key=lambda item: (-item[1], -item[0]))
        return ranked[:limit]

    def _phrase_freq(self, tokens: tuple[str, ...], prefix: bool) -> dict[int, tuple[float, float]]:
        """{id: (weighted occurrences, length in tokens)} of the memories where the phrase occurs."""
        if len(tokens) == 1:
            low = tokens[0]
            rows = self.conn.execute(
                f"SELECT p.entity_id, sum({_WEIGHTED}), max(p.doc_tokens) FROM search_postings p "
                "WHERE p.term >= ? AND p.term < ? GROUP BY p.entity_id",
                (low, _after(low) if prefix else low + "\x01"),
            )
            return {int(entity_id): (float(f), float(d)) for entity_id, f, d in rows}
        exact = sorted(set(tokens[:-1] if prefix else tokens))
        rows = self.conn.execute(
            "SELECT entity_id, max(doc_tokens) FROM search_postings WHERE term = ANY(?::text[]) "
            "GROUP BY entity_id HAVING count(*) = ?",
            (exact, len(exact)),
        )
        lengths = {int(entity_id): float(d) for entity_id, d in rows}
        out: dict[int, tuple[float, float]] = {}
        for chunk in _chunks(sorted(lengths)):
            for entity in self.load(chunk):
                f = 0.0
                for weight, text in zip(
                    WEIGHTS, index_columns(entity.name, entity.title, entity.observations), strict=True
                ):
                    f += weight * _occurrences([token for _, token in positions(text)], tokens, prefix)
                if f > 0:
                    out[entity.id] = (f, lengths[entity.id])
        return out

    def _passing(self, ids: Sequence[int], filters: Filters) -> list[int]:
        where, params = filter_sql(filters)
        passing: list[int] = []
        for chunk in _chunks(list(ids)):
            sql = f"SELECT e.id FROM entities e WHERE e.id IN ({_marks(chunk)}) {where}"
            passing.extend(int(row[0]) for row in self.conn.execute(sql, (*chunk, *params)))
        return passing


def _occurrences(stream: Sequence[str], tokens: tuple[str, ...], prefix: bool) -> int:
    """How many times the phrase occurs in a column's tokens (FTS5 counts each starting position)."""
    size = len(tokens)
    count = 0
    for start in range(len(stream) - size + 1):
        window = stream[start : start + size]
        if list(window[:-1]) == list(tokens[:-1]) and (
            window[-1].startswith(tokens[-1]) if prefix else window[-1] == tokens[-1]
        ):
            count += 1
    return count


def _ln(value: float) -> float:
    import math

    return math.log(value)
