"""The store's aggregate reads for stats, analytics, user patterns and projects, and the demo rows' removal.

Every query here is one pass over a table, grouped in SQLite, so the answers stay quick at 100k memories. Rows
another program wrote badly (metadata that is not JSON, a created_at that is not a time) are counted where they
can be and skipped where they cannot, never an error: metadata is read only through `json_valid`.
"""

from __future__ import annotations

from collections.abc import Sequence

from memesh.store.reads import Reads
from memesh.store.sql import _chunks, _marks

# created_at is `YYYY-MM-DD HH:MM:SS` (UTC); last_accessed_at is ISO 8601 with `T` and `Z`. Both begin with the
# date, so the day is the first ten characters of either.
_DAY = "substr({column}, 1, 10)"


class Insights(Reads):
    """Counts and distributions over the whole graph; nothing here counts an access."""

    def totals(self) -> tuple[int, int, int, int]:
        """How many memories (archived included), observations, relations and distinct tags are stored."""
        # Distinct tags are counted over `SELECT DISTINCT tag`, not `COUNT(DISTINCT tag)`: SQLite then walks
        # idx_tags_tag skipping each value's duplicates and PostgreSQL hashes, where COUNT(DISTINCT) scanned the
        # table and sorted every tag row (issue 36: 2.6 -> 0.03 ms on SQLite and 6.1 -> 3.0 ms on PostgreSQL at
        # 10k memories and 100 distinct tags). The same count: equality and NULLs are the same in both forms.
        row = self.conn.execute(
            "SELECT (SELECT COUNT(*) FROM entities), (SELECT COUNT(*) FROM observations), "
            "(SELECT COUNT(*) FROM relations), (SELECT COUNT(*) FROM (SELECT DISTINCT tag FROM tags) AS d)"
        ).fetchone()
        return int(row[0]), int(row[1]), int(row[2]), int(row[3])

    def type_counts(self, *, active_only: bool = False) -> list[tuple[str, int]]:
        """(type, memories) for every type, most common first."""
        where = "WHERE status = 'active'" if active_only else ""
        rows = self.conn.execute(
            f"SELECT type, COUNT(*) AS n FROM entities {where} GROUP BY type ORDER BY n DESC, type"
        )
        return [(str(kind), int(count)) for kind, count in rows]

    def tag_counts(self, limit: int) -> list[tuple[str, int]]:
        """(tag, memories carrying it) for the `limit` most used tags."""
        rows = self.conn.execute(
            "SELECT tag, COUNT(*) AS n FROM tags GROUP BY tag ORDER BY n DESC, tag LIMIT ?", (limit,)
        )
        return [(str(tag), int(count)) for tag, count in rows]

    def status_counts(self) -> list[tuple[str, int]]:
        rows = self.conn.execute("SELECT status, COUNT(*) AS n FROM entities GROUP BY status ORDER BY n DESC, status")
        return [(str(status), int(count)) for status, count in rows]

    def namespace_counts(self) -> list[tuple[str, int]]:
        rows = self.conn.execute(
            "SELECT namespace, COUNT(*) AS n FROM entities GROUP BY namespace ORDER BY n DESC, namespace"
        )
        return [(str(namespace), int(count)) for namespace, count in rows]

    def project_tag_counts(self) -> list[tuple[str, int]]:
        """(project, memories tagged project:<project>) for every project tag, most common first."""
        rows = self.conn.execute(
            "SELECT SUBSTR(tag, 9) AS project, COUNT(*) AS n FROM tags WHERE SUBSTR(tag, 1, 8) = 'project:' "
            "GROUP BY tag ORDER BY n DESC, project"
        )
        return [(str(project), int(count)) for project, count in rows]

    def health_counts(
        self, *, accessed_since: str, created_since: str, confidence_above: float, lesson_types: Sequence[str]
    ) -> tuple[int, int, int, int, int]:
        """Active memories: all, accessed at or after `accessed_since` (ISO), confidence above the bar, created at or
        after `created_since` (SQLite time), and of the lesson types."""
        count_if = self.dialect.count_if
        row = self.conn.execute(
            f"SELECT COUNT(*), {count_if.format('last_accessed_at >= ?')}, {count_if.format('confidence > ?')}, "
            f"{count_if.format('created_at >= ?')}, {count_if.format(f'type IN ({_marks(lesson_types)})')} "
            "FROM entities WHERE status = 'active'",
            (accessed_since, confidence_above, created_since, *lesson_types),
        ).fetchone()
        return int(row[0]), int(row[1]), int(row[2]), int(row[3]), int(row[4])

    def lesson_severity(self, lesson_types: Sequence[str]) -> tuple[int, int, int]:
        """Active lessons: tagged severity:critical, tagged with any severity:, and all of them."""
        # Walk the lessons (type index), then each one's own tags (the (entity_id, tag) index) by range: a LIKE
        # would not use the index.
        critical = "EXISTS (SELECT 1 FROM tags t WHERE t.entity_id = e.id AND t.tag = 'severity:critical')"
        rated = (
            "EXISTS (SELECT 1 FROM tags t WHERE t.entity_id = e.id AND t.tag >= 'severity:' AND t.tag < 'severity;')"
        )
        row = self.conn.execute(
            f"SELECT COUNT(*), {self.dialect.count_if.format(critical)}, {self.dialect.count_if.format(rated)} "
            f"FROM entities e WHERE e.status = 'active' AND e.type IN ({_marks(lesson_types)})",
            tuple(lesson_types),
        ).fetchone()
        return int(row[1]), int(row[2]), int(row[0])

    def citation_counts(self) -> tuple[int, int]:
        """(cited, checked): recall hits, and hits plus misses, over every memory."""
        row = self.conn.execute(
            "SELECT COALESCE(SUM(recall_hits), 0), COALESCE(SUM(recall_hits + recall_misses), 0) FROM entities"
        ).fetchone()
        return int(row[0]), int(row[1])

    def created_per_day(self, since_day: str) -> dict[str, int]:
        """Memories created on each UTC day from `since_day` (YYYY-MM-DD) on."""
        day = _DAY.format(column="created_at")
        rows = self.conn.execute(
            f"SELECT {day} AS d, COUNT(*) FROM entities WHERE created_at >= ? GROUP BY d", (since_day,)
        )
        return {str(d): int(count) for d, count in rows if d}

    def accessed_per_day(self, since_day: str) -> dict[str, int]:
        """Memories whose last access fell on each UTC day from `since_day` on."""
        day = _DAY.format(column="last_accessed_at")
        rows = self.conn.execute(
            f"SELECT {day} AS d, COUNT(*) FROM entities WHERE last_accessed_at >= ? GROUP BY d", (since_day,)
        )
        return {str(d): int(count) for d, count in rows if d}

    def accessed_since(self, since: str) -> int:
        """Active memories accessed at or after `since` (ISO)."""
        row = self.conn.execute(
            "SELECT COUNT(*) FROM entities WHERE status = 'active' AND last_accessed_at >= ?", (since,)
        ).fetchone()
        return int(row[0])

    def age_counts(self, bounds: Sequence[str]) -> list[tuple[str, int, int]]:
        """(type, bucket index, active memories) where bucket i holds memories created at or after bounds[i] and
        before bounds[i-1]; the last index (len(bounds)) is everything older. Bounds are SQLite times, newest first."""
        cases = " ".join(f"WHEN created_at >= ? THEN {index}" for index in range(len(bounds)))
        rows = self.conn.execute(
            f"SELECT type, CASE {cases} ELSE {len(bounds)} END AS bucket, COUNT(*) FROM entities "
            "WHERE status = 'active' GROUP BY type, bucket",
            tuple(bounds),
        )
        return [(str(kind), int(bucket), int(count)) for kind, bucket, count in rows]

    def count_created(self, types: Sequence[str], since: str) -> int:
        """Memories of these types created at or after `since` (SQLite time), archived included."""
        row = self.conn.execute(
            f"SELECT COUNT(*) FROM entities WHERE type IN ({_marks(types)}) AND created_at >= ?", (*types, since)
        ).fetchone()
        return int(row[0])

    def stale_count(self, types: Sequence[str], *, accessed_before: str, created_before: str) -> int:
        """Active memories of these types last accessed before `accessed_before` (ISO), or never accessed and created
        before `created_before` (SQLite time)."""
        row = self.conn.execute(
            f"SELECT COUNT(*) FROM entities WHERE status = 'active' AND type IN ({_marks(types)}) AND "
            "((last_accessed_at IS NOT NULL AND last_accessed_at < ?) "
            "OR (last_accessed_at IS NULL AND created_at < ?))",
            (*types, accessed_before, created_before),
        ).fetchone()
        return int(row[0])

    def open_count(self, types: Sequence[str], created_before: str) -> int:
        """Active memories of these types created before `created_before` that nothing supersedes."""
        row = self.conn.execute(
            f"SELECT COUNT(*) FROM entities e WHERE e.status = 'active' AND e.type IN ({_marks(types)}) "
            "AND e.created_at < ? AND NOT EXISTS (SELECT 1 FROM relations r WHERE r.to_entity_id = e.id "
            "AND r.relation_type = 'supersedes')",
            (*types, created_before),
        ).fetchone()
        return int(row[0])

    def orphan_counts(self) -> tuple[int, int, int]:
        """(active memories, active memories with no relation either way, relations)."""
        row = self.conn.execute(
            "SELECT (SELECT COUNT(*) FROM entities WHERE status = 'active'), "
            "(SELECT COUNT(*) FROM entities e WHERE e.status = 'active' "
            " AND NOT EXISTS (SELECT 1 FROM relations r WHERE r.from_entity_id = e.id) "
            " AND NOT EXISTS (SELECT 1 FROM relations r WHERE r.to_entity_id = e.id)), "
            "(SELECT COUNT(*) FROM relations)"
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

    def project_tag_types(self) -> list[tuple[str, str, int]]:
        """(project id, type, active memories) for every `project:<id>` tag."""
        rows = self.conn.execute(
            "SELECT substr(t.tag, 9) AS p, e.type, COUNT(*) FROM tags t JOIN entities e ON e.id = t.entity_id "
            "WHERE t.tag >= 'project:' AND t.tag < 'project;' AND e.status = 'active' GROUP BY p, e.type"
        )
        return [(str(project), str(kind), int(count)) for project, kind, count in rows if project]

    def untagged_names(self) -> list[tuple[str, str]]:
        """(name, type) of active memories carrying no `project:` tag."""
        rows = self.conn.execute(
            "SELECT e.name, e.type FROM entities e WHERE e.status = 'active' AND NOT EXISTS "
            "(SELECT 1 FROM tags t WHERE t.entity_id = e.id AND t.tag >= 'project:' AND t.tag < 'project;')"
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
