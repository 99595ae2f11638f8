"""The store's aggregate reads for stats, analytics, user patterns and projects, and the demo rows' removal.

Every query here is one pass over a table, grouped in SQLite, so the answers stay quick at 100k memories. Rows
another program wrote badly (metadata that is not JSON, a created_at that is not a time) are counted where they
can be and skipped where they cannot, never an error: metadata is read only through `json_valid`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from memesh.store.reads import Reads, people_sql
from memesh.store.sql import _chunks, _marks

if TYPE_CHECKING:
    from memesh.model import Filters

# created_at is `YYYY-MM-DD HH:MM:SS` (UTC); last_accessed_at is ISO 8601 with `T` and `Z`. Both begin with the
# date, so the day is the first ten characters of either.
_DAY = "substr({column}, 1, 10)"


def _scope(people: Filters | None) -> tuple[str, list[Any]]:
    """`AND …` clauses over the memory aliased `e` keeping what a member may see (`people_sql`, the rule recall
    applies: its projects, `personal` memories only its own); empty for the whole store (a local call, the owner)."""
    return people_sql(people) if people is not None else ("", [])


class Insights(Reads):
    """Counts and distributions over the whole graph, or over what a member may see (`people`: its view, issue 32;
    None counts everything, as before); nothing here counts an access."""

    def totals(self, people: Filters | None = None) -> tuple[int, int, int, int]:
        """How many memories (archived included), observations, relations and distinct tags are stored; with
        `people`, those of the memories it may see (a relation when it sees both ends)."""
        if people is not None:
            return self._scoped_totals(people)
        # Distinct tags are counted over `SELECT DISTINCT tag`, not `COUNT(DISTINCT tag)`: SQLite then walks
        # idx_tags_tag skipping each value's duplicates and PostgreSQL hashes, where COUNT(DISTINCT) scanned the
        # table and sorted every tag row (issue 36: 2.6 -> 0.03 ms on SQLite and 6.1 -> 3.0 ms on PostgreSQL at
        # 10k memories and 100 distinct tags). The same count: equality and NULLs are the same in both forms.
        row = self.conn.execute(
            "SELECT (SELECT COUNT(*) FROM entities), (SELECT COUNT(*) FROM observations), "
            "(SELECT COUNT(*) FROM relations), (SELECT COUNT(*) FROM (SELECT DISTINCT tag FROM tags) AS d)"
        ).fetchone()
        return int(row[0]), int(row[1]), int(row[2]), int(row[3])

    def _scoped_totals(self, people: Filters) -> tuple[int, int, int, int]:
        scope, params = people_sql(people)
        seen = f"SELECT e.id FROM entities e WHERE 1 = 1 {scope}"
        row = self.conn.execute(
            f"SELECT (SELECT COUNT(*) FROM entities e WHERE 1 = 1 {scope}), "
            f"(SELECT COUNT(*) FROM observations o WHERE o.entity_id IN ({seen})), "
            f"(SELECT COUNT(*) FROM relations r WHERE r.from_entity_id IN ({seen}) AND r.to_entity_id IN ({seen})), "
            f"(SELECT COUNT(*) FROM (SELECT DISTINCT t.tag FROM tags t WHERE t.entity_id IN ({seen})) AS d)",
            (*params, *params, *params, *params, *params),
        ).fetchone()
        return int(row[0]), int(row[1]), int(row[2]), int(row[3])

    def type_counts(self, *, active_only: bool = False, people: Filters | None = None) -> list[tuple[str, int]]:
        """(type, memories) for every type, most common first."""
        scope, params = _scope(people)
        where = "WHERE e.status = 'active'" if active_only else "WHERE 1 = 1"
        rows = self.conn.execute(
            f"SELECT e.type, COUNT(*) AS n FROM entities e {where} {scope} GROUP BY e.type ORDER BY n DESC, e.type",
            params,
        )
        return [(str(kind), int(count)) for kind, count in rows]

    def tag_counts(self, limit: int, people: Filters | None = None) -> list[tuple[str, int]]:
        """(tag, memories carrying it) for the `limit` most used tags."""
        if people is None:
            rows = self.conn.execute(
                "SELECT tag, COUNT(*) AS n FROM tags GROUP BY tag ORDER BY n DESC, tag LIMIT ?", (limit,)
            )
        else:
            scope, params = people_sql(people)
            # The memories it may see are read once (an IN list the engine builds), not checked per tag row.
            rows = self.conn.execute(
                f"SELECT t.tag, COUNT(*) AS n FROM tags t WHERE t.entity_id IN (SELECT e.id FROM entities e "
                f"WHERE 1 = 1 {scope}) GROUP BY t.tag ORDER BY n DESC, t.tag LIMIT ?",
                (*params, limit),
            )
        return [(str(tag), int(count)) for tag, count in rows]

    def status_counts(self, people: Filters | None = None) -> list[tuple[str, int]]:
        scope, params = _scope(people)
        rows = self.conn.execute(
            f"SELECT e.status, COUNT(*) AS n FROM entities e WHERE 1 = 1 {scope} GROUP BY e.status "
            "ORDER BY n DESC, e.status",
            params,
        )
        return [(str(status), int(count)) for status, count in rows]

    def namespace_counts(self, people: Filters | None = None) -> list[tuple[str, int]]:
        scope, params = _scope(people)
        rows = self.conn.execute(
            f"SELECT e.namespace, COUNT(*) AS n FROM entities e WHERE 1 = 1 {scope} GROUP BY e.namespace "
            "ORDER BY n DESC, e.namespace",
            params,
        )
        return [(str(namespace), int(count)) for namespace, count in rows]

    def project_tag_counts(self, people: Filters | None = None) -> list[tuple[str, int]]:
        """(project, memories tagged project:<project>) for every project tag, most common first."""
        if people is None:
            rows = self.conn.execute(
                "SELECT SUBSTR(tag, 9) AS project, COUNT(*) AS n FROM tags WHERE SUBSTR(tag, 1, 8) = 'project:' "
                "GROUP BY tag ORDER BY n DESC, project"
            )
        else:
            scope, params = people_sql(people)
            rows = self.conn.execute(
                "SELECT SUBSTR(t.tag, 9) AS project, COUNT(*) AS n FROM tags t WHERE SUBSTR(t.tag, 1, 8) = 'project:' "
                f"AND t.entity_id IN (SELECT e.id FROM entities e WHERE 1 = 1 {scope}) GROUP BY t.tag "
                "ORDER BY n DESC, project",
                params,
            )
        return [(str(project), int(count)) for project, count in rows]

    def health_counts(
        self,
        *,
        accessed_since: str,
        created_since: str,
        confidence_above: float,
        lesson_types: Sequence[str],
        people: Filters | None = None,
    ) -> tuple[int, int, int, int, int]:
        """Active memories: all, accessed at or after `accessed_since` (ISO), confidence above the bar, created at or
        after `created_since` (SQLite time), and of the lesson types."""
        count_if = self.dialect.count_if
        scope, params = _scope(people)
        row = self.conn.execute(
            f"SELECT COUNT(*), {count_if.format('e.last_accessed_at >= ?')}, {count_if.format('e.confidence > ?')}, "
            f"{count_if.format('e.created_at >= ?')}, {count_if.format(f'e.type IN ({_marks(lesson_types)})')} "
            f"FROM entities e WHERE e.status = 'active' {scope}",
            (accessed_since, confidence_above, created_since, *lesson_types, *params),
        ).fetchone()
        return int(row[0]), int(row[1]), int(row[2]), int(row[3]), int(row[4])

    def lesson_severity(self, lesson_types: Sequence[str], people: Filters | None = None) -> tuple[int, int, int]:
        """Active lessons: tagged severity:critical, tagged with any severity:, and all of them."""
        # Walk the lessons (type index), then each one's own tags (the (entity_id, tag) index) by range: a LIKE
        # would not use the index.
        critical = "EXISTS (SELECT 1 FROM tags t WHERE t.entity_id = e.id AND t.tag = 'severity:critical')"
        rated = (
            "EXISTS (SELECT 1 FROM tags t WHERE t.entity_id = e.id AND t.tag >= 'severity:' AND t.tag < 'severity;')"
        )
        scope, params = _scope(people)
        row = self.conn.execute(
            f"SELECT COUNT(*), {self.dialect.count_if.format(critical)}, {self.dialect.count_if.format(rated)} "
            f"FROM entities e WHERE e.status = 'active' AND e.type IN ({_marks(lesson_types)}) {scope}",
            (*lesson_types, *params),
        ).fetchone()
        return int(row[1]), int(row[2]), int(row[0])

    def citation_counts(self, people: Filters | None = None) -> tuple[int, int]:
        """(cited, checked): recall hits, and hits plus misses, over every memory."""
        scope, params = _scope(people)
        row = self.conn.execute(
            "SELECT COALESCE(SUM(e.recall_hits), 0), COALESCE(SUM(e.recall_hits + e.recall_misses), 0) "
            f"FROM entities e WHERE 1 = 1 {scope}",
            params,
        ).fetchone()
        return int(row[0]), int(row[1])

    def created_per_day(self, since_day: str, people: Filters | None = None) -> dict[str, int]:
        """Memories created on each UTC day from `since_day` (YYYY-MM-DD) on."""
        day = _DAY.format(column="e.created_at")
        scope, params = _scope(people)
        rows = self.conn.execute(
            f"SELECT {day} AS d, COUNT(*) FROM entities e WHERE e.created_at >= ? {scope} GROUP BY d",
            (since_day, *params),
        )
        return {str(d): int(count) for d, count in rows if d}

    def accessed_per_day(self, since_day: str, people: Filters | None = None) -> dict[str, int]:
        """Memories whose last access fell on each UTC day from `since_day` on."""
        day = _DAY.format(column="e.last_accessed_at")
        scope, params = _scope(people)
        rows = self.conn.execute(
            f"SELECT {day} AS d, COUNT(*) FROM entities e WHERE e.last_accessed_at >= ? {scope} GROUP BY d",
            (since_day, *params),
        )
        return {str(d): int(count) for d, count in rows if d}

    def accessed_since(self, since: str, people: Filters | None = None) -> int:
        """Active memories accessed at or after `since` (ISO)."""
        scope, params = _scope(people)
        row = self.conn.execute(
            f"SELECT COUNT(*) FROM entities e WHERE e.status = 'active' AND e.last_accessed_at >= ? {scope}",
            (since, *params),
        ).fetchone()
        return int(row[0])

    def age_counts(self, bounds: Sequence[str], people: Filters | None = None) -> list[tuple[str, int, int]]:
        """(type, bucket index, active memories) where bucket i holds memories created at or after bounds[i] and
        before bounds[i-1]; the last index (len(bounds)) is everything older. Bounds are SQLite times, newest first."""
        cases = " ".join(f"WHEN e.created_at >= ? THEN {index}" for index in range(len(bounds)))
        scope, params = _scope(people)
        rows = self.conn.execute(
            f"SELECT e.type, CASE {cases} ELSE {len(bounds)} END AS bucket, COUNT(*) FROM entities e "
            f"WHERE e.status = 'active' {scope} GROUP BY e.type, bucket",
            (*bounds, *params),
        )
        return [(str(kind), int(bucket), int(count)) for kind, bucket, count in rows]

    def count_created(self, types: Sequence[str], since: str, people: Filters | None = None) -> int:
        """Memories of these types created at or after `since` (SQLite time), archived included."""
        scope, params = _scope(people)
        row = self.conn.execute(
            f"SELECT COUNT(*) FROM entities e WHERE e.type IN ({_marks(types)}) AND e.created_at >= ? {scope}",
            (*types, since, *params),
        ).fetchone()
        return int(row[0])

    def stale_count(
        self, types: Sequence[str], *, accessed_before: str, created_before: str, people: Filters | None = None
    ) -> int:
        """Active memories of these types last accessed before `accessed_before` (ISO), or never accessed and created
        before `created_before` (SQLite time)."""
        scope, params = _scope(people)
        row = self.conn.execute(
            f"SELECT COUNT(*) FROM entities e WHERE e.status = 'active' AND e.type IN ({_marks(types)}) AND "
            "((e.last_accessed_at IS NOT NULL AND e.last_accessed_at < ?) "
            f"OR (e.last_accessed_at IS NULL AND e.created_at < ?)) {scope}",
            (*types, accessed_before, created_before, *params),
        ).fetchone()
        return int(row[0])

    def open_count(self, types: Sequence[str], created_before: str, people: Filters | None = None) -> int:
        """Active memories of these types created before `created_before` that nothing supersedes."""
        scope, params = _scope(people)
        row = self.conn.execute(
            f"SELECT COUNT(*) FROM entities e WHERE e.status = 'active' AND e.type IN ({_marks(types)}) "
            "AND e.created_at < ? AND NOT EXISTS (SELECT 1 FROM relations r WHERE r.to_entity_id = e.id "
            f"AND r.relation_type = 'supersedes') {scope}",
            (*types, created_before, *params),
        ).fetchone()
        return int(row[0])

    def orphan_counts(self, people: Filters | None = None) -> tuple[int, int, int]:
        """(active memories, active memories with no relation either way, relations)."""
        if people is not None:
            return self._scoped_orphan_counts(people)
        row = self.conn.execute(
            "SELECT (SELECT COUNT(*) FROM entities WHERE status = 'active'), "
            "(SELECT COUNT(*) FROM entities e WHERE e.status = 'active' "
            " AND NOT EXISTS (SELECT 1 FROM relations r WHERE r.from_entity_id = e.id) "
            " AND NOT EXISTS (SELECT 1 FROM relations r WHERE r.to_entity_id = e.id)), "
            "(SELECT COUNT(*) FROM relations)"
        ).fetchone()
        return int(row[0]), int(row[1]), int(row[2])

    def _scoped_orphan_counts(self, people: Filters) -> tuple[int, int, int]:
        """orphan_counts over what a member sees: a relation counts (and joins) when it sees both ends."""
        scope, params = people_sql(people)
        seen = f"SELECT e.id FROM entities e WHERE 1 = 1 {scope}"
        linked = (
            f"SELECT r.from_entity_id, r.to_entity_id FROM relations r WHERE r.from_entity_id IN ({seen}) "
            f"AND r.to_entity_id IN ({seen})"
        )
        row = self.conn.execute(
            f"SELECT (SELECT COUNT(*) FROM entities e WHERE e.status = 'active' {scope}), "
            f"(SELECT COUNT(*) FROM entities e WHERE e.status = 'active' {scope} "
            f" AND e.id NOT IN (SELECT l.from_entity_id FROM ({linked}) AS l) "
            f" AND e.id NOT IN (SELECT l.to_entity_id FROM ({linked}) AS l)), "
            f"(SELECT COUNT(*) FROM ({linked}) AS l)",
            (*params, *params, *params, *params, *params, *params, *params, *params),
        ).fetchone()
        return int(row[0]), int(row[1]), int(row[2])

    # --- user patterns -------------------------------------------------------------------------------------------

    def local_hour_weekday_counts(self) -> list[tuple[int, int, int]]:
        """(hour 0-23, weekday 0-6 with 0 = Sunday, memories) by created_at in local time. One conversion per row
        (the local-time conversion is what this query spends); rows whose created_at is not a time are left out."""
        rows = self.conn.execute(
            "SELECT strftime('%H %w', created_at, 'localtime') AS k, COUNT(*) FROM entities GROUP BY k"
        )
        out: list[tuple[int, int, int]] = []
        for key, count in rows:
            if key:
                hour, weekday = key.split()
                out.append((int(hour), int(weekday), int(count)))
        return out

    def observations_starting(self, types: Sequence[str], prefix: str, limit: int) -> list[str]:
        """Up to `limit` observation texts beginning with `prefix` on memories of these types, newest first."""
        rows = self.conn.execute(
            f"SELECT o.content FROM observations o JOIN entities e ON e.id = o.entity_id "
            f"WHERE e.type IN ({_marks(types)}) AND substr(o.content, 1, ?) = ? ORDER BY o.id DESC LIMIT ?",
            (*types, len(prefix), prefix, limit),
        )
        return [str(row[0]) for row in rows]

    def count_of_types(self, types: Sequence[str]) -> int:
        """Memories of these types, archived included."""
        row = self.conn.execute(
            f"SELECT COUNT(*) FROM entities WHERE type IN ({_marks(types)})", tuple(types)
        ).fetchone()
        return int(row[0])

    def type_confidence(self, exclude: Sequence[str], min_count: int, limit: int) -> list[tuple[str, float, int]]:
        """(type, mean confidence to 2 decimals, active memories) for types with at least `min_count`, surest first."""
        rows = self.conn.execute(
            f"SELECT type, {self.dialect.round2.format('AVG(confidence)')} AS c, COUNT(*) AS n FROM entities "
            f"WHERE status = 'active' AND type NOT IN ({_marks(exclude)}) GROUP BY type HAVING COUNT(*) >= ? "
            "ORDER BY c DESC, n DESC, type LIMIT ?",
            (*exclude, min_count, limit),
        )
        return [(str(kind), float(conf), int(count)) for kind, conf, count in rows]

    def tags_on_types(self, types: Sequence[str], limit: int) -> list[tuple[str, int]]:
        """(tag, memories) over memories of these types, most common first."""
        rows = self.conn.execute(
            "SELECT t.tag, COUNT(*) AS n FROM tags t JOIN entities e ON e.id = t.entity_id "
            f"WHERE e.type IN ({_marks(types)}) GROUP BY t.tag ORDER BY n DESC, t.tag LIMIT ?",
            (*types, limit),
        )
        return [(str(tag), int(count)) for tag, count in rows]

    # --- projects ------------------------------------------------------------------------------------------------

    def project_tag_types(self, people: Filters | None = None) -> list[tuple[str, str, int]]:
        """(project id, type, active memories) for every `project:<id>` tag."""
        scope, params = _scope(people)
        rows = self.conn.execute(
            "SELECT substr(t.tag, 9) AS p, e.type, COUNT(*) FROM tags t JOIN entities e ON e.id = t.entity_id "
            f"WHERE t.tag >= 'project:' AND t.tag < 'project;' AND e.status = 'active' {scope} GROUP BY p, e.type",
            params,
        )
        return [(str(project), str(kind), int(count)) for project, kind, count in rows if project]

    def untagged_names(self, people: Filters | None = None) -> list[tuple[str, str]]:
        """(name, type) of active memories carrying no `project:` tag."""
        scope, params = _scope(people)
        rows = self.conn.execute(
            "SELECT e.name, e.type FROM entities e WHERE e.status = 'active' AND NOT EXISTS "
            f"(SELECT 1 FROM tags t WHERE t.entity_id = e.id AND t.tag >= 'project:' AND t.tag < 'project;') {scope}",
            params,
        )
        return [(str(name), str(kind)) for name, kind in rows]

    # --- demo rows -----------------------------------------------------------------------------------------------

    def marked_ids(self, key: str) -> list[int]:
        """Memories whose metadata holds `key: true` (rows whose metadata is not JSON hold nothing)."""
        rows = self.conn.execute(
            "SELECT id FROM entities WHERE json_valid(metadata) AND json_type(metadata, ?) = 'true' ORDER BY id",
            (f"$.{key}",),
        )
        return [int(row[0]) for row in rows]

    def delete(self, ids: Sequence[int]) -> int:
        """Delete these memories for good, with their observations, tags, relations and index rows; returns how many.
        The caller holds the transaction."""
        removed = 0
        for chunk in _chunks(list(ids)):
            marks = _marks(chunk)
            self._unindex(chunk)
            removed += self.conn.execute(f"DELETE FROM entities WHERE id IN ({marks})", chunk).rowcount
        return removed
