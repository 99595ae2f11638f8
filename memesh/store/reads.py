"""The store's reads: memories by id or name, listings, counts, and what MeMesh keeps about itself (both engines)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace
from typing import Any

from memesh.model import ACTIVE, NAMESPACES, Entity, Filters, Relation
from memesh.store.sql import SqlBase, _chunks, _loads, _marks


def key(name: str) -> str:
    """A name as stored names are compared (controls out, one line, NFC): `café` in NFD finds the memory `café`."""
    from memesh.core.clean import clean_key  # the secret patterns: not on the start-up path of a recall

    return clean_key(name)


# A memory's own columns, in the order `entity_of` reads them (PostgreSQL's one-statement load selects them first).
ENTITY_COLUMNS = (
    "id, name, type, title, namespace, status, created_at, metadata, access_count, last_accessed_at, confidence, "
    "recall_hits, recall_misses"
)


def entity_of(row: Sequence[Any]) -> Entity:
    """The memory of a row that starts with ENTITY_COLUMNS; observations, tags and relations still empty."""
    return Entity(
        id=row[0],
        name=row[1],
        type=row[2],
        title=row[3],
        namespace=row[4],
        status=row[5],
        created_at=row[6],
        metadata=_loads(row[7]),
        access_count=row[8],
        last_accessed_at=row[9],
        confidence=row[10],
        recall_hits=row[11],
        recall_misses=row[12],
    )


class Reads(SqlBase):
    """Every read that is not a keyword search."""

    def entity_id(self, name: str) -> int | None:
        row = self.conn.execute("SELECT id FROM entities WHERE name = ?", (key(name),)).fetchone()
        return int(row[0]) if row else None

    def find(self, name: str) -> Entity | None:
        """The memory called `name`, archived or not, with its observations, tags and outgoing relations."""
        entity_id = self.entity_id(name)
        return self.load([entity_id])[0] if entity_id is not None else None

    def existing_names(self, names: Iterable[str], people: Filters | None = None) -> set[str]:
        """Which of `names` are stored; with `people` (a member's view, `people_sql`), only those it may see, so a
        memory outside a member's projects, or another member's `personal` one, is not there for it."""
        wanted = sorted({key(name) for name in names})
        scope, scope_params = people_sql(people) if people is not None else ("", [])
        found: set[str] = set()
        for chunk in _chunks(wanted):
            rows = self.conn.execute(
                f"SELECT e.name FROM entities e WHERE e.name IN ({_marks(chunk)}) {scope}", [*chunk, *scope_params]
            )
            found.update(row[0] for row in rows)
        return found

    def load(self, ids: Sequence[int]) -> list[Entity]:
        """The memories with these ids, in the order given (ids that do not exist are skipped)."""
        by_id: dict[int, Entity] = {}
        for chunk in _chunks(list(ids)):
            marks = _marks(chunk)
            for row in self.conn.execute(
                f"SELECT {ENTITY_COLUMNS} FROM entities WHERE id IN ({marks})",
                chunk,
            ):
                by_id[row[0]] = entity_of(row)
            for entity_id, content in self.conn.execute(
                f"SELECT entity_id, content FROM observations WHERE entity_id IN ({marks}) ORDER BY entity_id, id",
                chunk,
            ):
                by_id[entity_id].observations.append(content)
            for entity_id, tag in self.conn.execute(
                f"SELECT entity_id, tag FROM tags WHERE entity_id IN ({marks}) ORDER BY entity_id, id", chunk
            ):
                by_id[entity_id].tags.append(tag)
            for entity_id, source, target, kind in self.conn.execute(
                "SELECT r.from_entity_id, f.name, t.name, r.relation_type FROM relations r "
                "JOIN entities f ON f.id = r.from_entity_id JOIN entities t ON t.id = r.to_entity_id "
                f"WHERE r.from_entity_id IN ({marks}) ORDER BY r.from_entity_id, r.id",
                chunk,
            ):
                by_id[entity_id].relations.append(Relation(source, target, kind))
        return [by_id[entity_id] for entity_id in ids if entity_id in by_id]

    def observation_texts(self, ids: Sequence[int]) -> dict[int, list[str]]:
        """The observations of these memories, in order, and nothing else (what recall's passage signal reads)."""
        texts: dict[int, list[str]] = {}
        for chunk in _chunks(list(ids)):
            marks = _marks(chunk)
            sql = f"SELECT entity_id, content FROM observations WHERE entity_id IN ({marks}) ORDER BY entity_id, id"
            for entity_id, content in self.conn.execute(sql, chunk):
                texts.setdefault(entity_id, []).append(content)
        return texts

    def memory_dates(self, ids: Sequence[int]) -> dict[int, str]:
        """Each of these memories' own day, `YYYY-MM-DD`: the first `date:YYYY-MM-DD` tag a writer gave it, else the
        day it was created (UTC). What recall's time bonus reads (issue 38)."""
        dates: dict[int, str] = {}
        for chunk in _chunks(list(ids)):
            marks = _marks(chunk)
            sql = (
                "SELECT e.id, e.created_at, (SELECT MIN(t.tag) FROM tags t WHERE t.entity_id = e.id "
                f"AND t.tag >= 'date:0' AND t.tag < 'date:A') FROM entities e WHERE e.id IN ({marks})"
            )
            for entity_id, created_at, tag in self.conn.execute(sql, chunk):
                dates[entity_id] = tag[5:15] if tag and _iso_day(tag[5:15]) else str(created_at)[:10]
        return dates

    def count(self, people: Filters | None = None) -> int:
        """How many memories are stored, archived included; with `people` (a member's view, `people_sql`), how many
        of them it may see."""
        if people is None:
            return self._counter("entities")
        scope, params = people_sql(people)
        row = self.conn.execute(f"SELECT COUNT(*) FROM entities e WHERE 1 = 1 {scope}", params).fetchone()
        return int(row[0])

    def list_ids(
        self,
        entity_type: str | None,
        limit: int,
        *,
        include_archived: bool = True,
        offset: int = 0,
        people: Filters | None = None,
    ) -> list[int]:
        """Newest first, optionally one type, after the newest `offset`; for listings that are not searches (no
        access is counted). `people`: an author filter and a member's scope (`people_sql`)."""
        if unstorable(entity_type):
            return []
        clauses: list[str] = []
        params: list[Any] = []
        if entity_type is not None:
            clauses.append("e.type = ?")
            params.append(entity_type)
        if not include_archived:
            clauses.append("e.status = 'active'")
        where = f"WHERE {' AND '.join(clauses)}" if clauses else "WHERE 1 = 1"
        scope, scope_params = people_sql(people) if people is not None else ("", [])
        return [
            row[0]
            for row in self.conn.execute(
                f"SELECT e.id FROM entities e {where} {scope} ORDER BY e.id DESC LIMIT ? OFFSET ?",
                (*params, *scope_params, limit, offset),
            )
        ]

    def ids_with_tag(self, tag: str) -> list[int]:
        """Every memory carrying exactly this tag, archived included, oldest first."""
        if unstorable(tag):
            return []
        return [
            row[0] for row in self.conn.execute("SELECT entity_id FROM tags WHERE tag = ? ORDER BY entity_id", (tag,))
        ]

    def get_meta(self, key: str) -> str | None:
        """A value MeMesh keeps about itself in the database (not about any one memory)."""
        row = self.conn.execute("SELECT value FROM memesh_metadata WHERE key = ?", (key,)).fetchone()
        return str(row[0]) if row else None

    def conflicts(self, names: Sequence[str]) -> list[tuple[str, str]]:
        """(source, target) of every contradicts relation between two of these memories, oldest relation first."""
        if len(names) < 2:
            return []
        marks = _marks(names)
        rows = self.conn.execute(
            "SELECT f.name, t.name FROM relations r JOIN entities f ON f.id = r.from_entity_id "
            "JOIN entities t ON t.id = r.to_entity_id WHERE r.relation_type = 'contradicts' "
            f"AND f.name IN ({marks}) AND t.name IN ({marks}) ORDER BY r.id",
            (*names, *names),
        )
        return [(source, target) for source, target in rows]

    def title_of(self, entity_id: int) -> str | None:
        row = self.conn.execute("SELECT title FROM entities WHERE id = ?", (entity_id,)).fetchone()
        return row[0] if row else None

    def recent(self, filters: Filters, limit: int) -> list[int]:
        """The newest memories (by id) that pass the filters."""
        sql, params = self.newest_sql(filters)
        return [row[0] for row in self.conn.execute(sql, (*params, limit))]

    def newest_sql(self, filters: Filters) -> tuple[str, list[Any]]:
        """The statement `recent` runs (the ids as `entity_id`, newest first; its last parameter, the limit, is the
        caller's), and its other parameters."""
        if filters.tag is not None and not unstorable(filters.tag):
            # Walk the tag's own index newest first (a rare tag would otherwise scan every memory for it).
            where, params = filter_sql(replace(filters, tag=None))
            sql = (
                f"SELECT e.id AS entity_id FROM tags t {self.dialect.cross_join} entities e ON e.id = t.entity_id "
                f"WHERE t.tag = ? {where} ORDER BY t.entity_id DESC LIMIT ?"
            )
            return sql, [filters.tag, *params]
        where, params = filter_sql(filters)
        return f"SELECT e.id AS entity_id FROM entities e WHERE 1 = 1 {where} ORDER BY e.id DESC LIMIT ?", params

    def recent_rows(self, filters: Filters, limit: int) -> list[Entity]:
        """`recent`'s memories, loaded (an engine may read them with the choice: PostgreSQL does, in one statement)."""
        return self.load(self.recent(filters, limit))


def _iso_day(text: str) -> bool:
    return len(text) == 10 and text[4] == "-" and text[7] == "-" and text.replace("-", "").isdigit()


def unstorable(value: str | None) -> bool:
    """Whether `value` holds a NUL, which no stored text does (every write strips controls: `clean_text`), so a
    filter on it matches nothing. Said before the statement: PostgreSQL's text cannot carry a NUL at all (psycopg
    refuses the parameter), where SQLite compares it and finds nothing; both engines answer "none"."""
    return value is not None and "\x00" in value


def filter_sql(filters: Filters) -> tuple[str, list[Any]]:
    """The `AND …` clauses (over `e`, the entities row) and their parameters that keep what passes `filters`."""
    if unstorable(filters.tag) or unstorable(filters.namespace) or unstorable(filters.author):
        return "AND 1 = 0", []
    clauses: list[str] = []
    params: list[Any] = []
    if not filters.include_archived:
        clauses.append(f"AND e.status = '{ACTIVE}'")
    if filters.namespace in NAMESPACES:
        # One of the three names, written in: a planner sees which (PostgreSQL's generic plans would otherwise plan
        # for the average namespace, and a namespace few memories hold was scanned for; see ADR 0005).
        clauses.append(f"AND e.namespace = '{filters.namespace}'")
    elif filters.namespace is not None:
        clauses.append("AND e.namespace = ?")
        params.append(filters.namespace)
    if filters.tag is not None:
        clauses.append("AND EXISTS (SELECT 1 FROM tags t WHERE t.entity_id = e.id AND t.tag = ?)")
        params.append(filters.tag)
    # created_at is `YYYY-MM-DD HH:MM:SS` UTC text on both engines (C collation on PostgreSQL): it sorts as time.
    if filters.created_since is not None:
        clauses.append("AND e.created_at >= ?")
        params.append(filters.created_since)
    if filters.created_until is not None:
        clauses.append("AND e.created_at < ?")
        params.append(filters.created_until)
    scope, scope_params = people_sql(filters)
    return " ".join([*clauses, scope]), [*params, *scope_params]


def people_sql(filters: Filters) -> tuple[str, list[Any]]:
    """The clauses of who wrote what and who may see it (issue 32): the author filter, a member's project scope,
    and `personal` memories kept to their author. Empty for a local call with no author filter."""
    clauses: list[str] = []
    params: list[Any] = []
    if unstorable(filters.author):
        return "AND 1 = 0", []
    if filters.author is not None:
        clauses.append("AND e.author = ?")
        params.append(filters.author)
    if filters.projects is not None:
        tags = [f"project:{project}" for project in filters.projects]
        if tags:
            clauses.append(f"AND EXISTS (SELECT 1 FROM tags s WHERE s.entity_id = e.id AND s.tag IN ({_marks(tags)}))")
            params.extend(tags)
        else:
            clauses.append("AND 1 = 0")
    if filters.viewer is not None:
        unowned = " OR e.author IS NULL" if filters.viewer_is_owner else ""
        clauses.append(f"AND (e.namespace <> 'personal' OR e.author = ?{unowned})")
        params.append(filters.viewer)
    return " ".join(clauses), params
