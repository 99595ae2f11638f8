"""The store's reads for what reaches an agent on its own (briefing, hooks), and the per-session record of what
reached it, which citation credit reads back.

Candidate queries compute each memory's activity (the later of its creation and its newest observation) in SQL
and keep only trusted, active rows, so a briefing reads a few hundred narrow rows instead of loading memories.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from functools import cache
from itertools import islice
from typing import TYPE_CHECKING

from memesh.store.reads import people_sql
from memesh.store.sql import SQLITE, Dialect, SqlBase, _chunks, _marks

if TYPE_CHECKING:  # made by the methods that return them: a recall or a remember loads neither
    from memesh.model import Filters
    from memesh.values import CandidateRow, Inbox


@cache
def _activity(dialect: Dialect) -> str:
    # The newest observation is the one with the highest id (the index on (entity_id, id) finds it without a scan).
    newest = "(SELECT o.created_at FROM observations o WHERE o.entity_id = e.id ORDER BY o.id DESC LIMIT 1)"
    return dialect.greatest.format("e.created_at", f"COALESCE({newest}, e.created_at)")


@cache
def _trusted_active(dialect: Dialect) -> str:
    # Imported memories are untrusted until reviewed: nothing injects them on its own. A memory with no trust key
    # predates the key and was written locally.
    return f"e.status = 'active' AND COALESCE({dialect.json_field('e.metadata', 'trust')}, 'trusted') = 'trusted'"


@cache
def _columns(dialect: Dialect) -> str:
    return (
        f"e.id, e.name, e.type, e.title, {_activity(dialect)} AS activity, e.access_count, e.last_accessed_at, "
        "e.confidence, e.recall_hits, e.recall_misses, e.author, e.namespace"
    )


# Newest activity first, by column number: naming the `activity` alias made SQLite evaluate its correlated subquery a
# second time for the sort (2200 rows: 30 ms against 18 ms at 10k memories), and the order is the same.
_BY_ACTIVITY = "5 IS NULL, 5 DESC, 1 DESC"
_GUARD_KEY = "'\"guard\"'"  # the key as a SQL string literal: '"guard"'


class Briefing(SqlBase):
    """Briefing candidates, the handoff and task-state rows, and the session's injected/recalled memories."""

    def project_candidates(self, project_tag: str, exclude_types: Collection[str], limit: int) -> list[CandidateRow]:
        """Active trusted memories carrying `project_tag` outside the global namespace, newest activity first."""
        excluded = sorted(exclude_types)
        # SQLite reads the first `limit` rows of the whole sort instead of running the query with a LIMIT: with one,
        # it keeps a bounded sorter that cost more than the full sort (SessionStart at 10k: ~21 → ~16 ms CPU for 2200
        # of 3300 rows; ~50 → ~36 ms with all 10k in the project). Same order, so the same rows (`id` breaks every
        # tie). PostgreSQL sends every row a query returns, so it keeps the LIMIT.
        bounded = self.dialect is not SQLITE
        sql = (
            f"SELECT {_columns(self.dialect)} FROM tags t {self.dialect.cross_join} entities e ON e.id = t.entity_id "
            f"WHERE t.tag = ? AND {_trusted_active(self.dialect)} AND e.namespace != 'global' "
            f"AND e.type NOT IN ({_marks(excluded) or 'NULL'}) "
            f"ORDER BY {_BY_ACTIVITY}" + (" LIMIT ?" if bounded else "")
        )
        params = (project_tag, *excluded, limit) if bounded else (project_tag, *excluded)
        from memesh.values import CandidateRow

        # The cursor is dropped (and its statement reset) as soon as the first `limit` rows are read.
        return list(map(CandidateRow._make, islice(self.conn.execute(sql, params), limit)))

    def product_work(self, project_tag: str, limit: int) -> list[tuple[CandidateRow, list[str]]]:
        """Active trusted product_improvement memories carrying `project_tag` (what accepting an improvement
        proposal creates), newest activity first, each with its priority:, implementation: and outcome: tags."""
        like = self.dialect.like
        sql = (
            f"SELECT {_columns(self.dialect)}, (SELECT {self.dialect.lines_of.format('s.tag')} FROM tags s "
            f"WHERE s.entity_id = e.id AND (s.tag {like} 'priority:%' OR s.tag {like} 'implementation:%' "
            f"OR s.tag {like} 'outcome:%')) "
            # From the type index: a project has few improvements among thousands of tagged memories.
            f"FROM entities e WHERE e.type = 'product_improvement' AND {_trusted_active(self.dialect)} "
            "AND EXISTS (SELECT 1 FROM tags t WHERE t.entity_id = e.id AND t.tag = ?) "
            f"ORDER BY {_BY_ACTIVITY} LIMIT ?"
        )
        from memesh.values import CandidateRow

        return [
            (CandidateRow(*row[:-1]), row[-1].split("\n") if row[-1] else [])
            for row in self.conn.execute(sql, (project_tag, limit))
        ]

    def global_candidates(self, exclude_types: Collection[str], limit: int) -> list[CandidateRow]:
        """Active trusted memories in the global namespace, newest first."""
        excluded = sorted(exclude_types)
        sql = (
            f"SELECT {_columns(self.dialect)} FROM entities e WHERE e.namespace = 'global' "
            f"AND {_trusted_active(self.dialect)} "
            f"AND e.type NOT IN ({_marks(excluded) or 'NULL'}) ORDER BY e.id DESC LIMIT ?"
        )
        from memesh.values import CandidateRow

        return [CandidateRow(*row) for row in self.conn.execute(sql, (*excluded, limit))]

    def other_project_candidates(
        self, project_tag: str, exclude_types: Collection[str], limit: int
    ) -> list[tuple[str, CandidateRow]]:
        """(project tag, memory) for the newest active trusted memories of other projects."""
        excluded = sorted(exclude_types)
        sql = (
            f"SELECT t.tag, {_columns(self.dialect)} "
            f"FROM tags t {self.dialect.cross_join} entities e ON e.id = t.entity_id "
            f"WHERE t.tag >= 'project:' AND t.tag < 'project;' AND t.tag != ? AND {_trusted_active(self.dialect)} "
            f"AND e.namespace != 'global' AND e.type NOT IN ({_marks(excluded) or 'NULL'}) "
            "ORDER BY e.id DESC LIMIT ?"
        )
        rows = self.conn.execute(sql, (project_tag, *excluded, limit * 4))
        from memesh.values import CandidateRow

        seen: set[int] = set()
        out: list[tuple[str, CandidateRow]] = []
        for tag, *rest in rows:
            if rest[0] in seen:
                continue
            seen.add(rest[0])
            out.append((tag.removeprefix("project:"), CandidateRow(*rest)))
        return out[:limit]

    def first_observations(self, ids: Sequence[int]) -> dict[int, str]:
        """Each memory's first observation (memories without one are absent)."""
        found: dict[int, str] = {}
        for chunk in _chunks(list(ids)):
            sql = (
                "SELECT o.entity_id, o.content FROM observations o WHERE o.id IN (SELECT MIN(id) FROM observations "
                f"WHERE entity_id IN ({_marks(chunk)}) GROUP BY entity_id)"
            )
            found.update(dict(self.conn.execute(sql, chunk)))
        return found

    def trusted_record(
        self, name: str, entity_type: str, project_tag: str, people: Filters | None = None
    ) -> tuple[str, str | None, str] | None:
        """(newest observation, activity, metadata JSON) of the active trusted memory `name` of this type carrying
        the project tag; None when there is none (an imported or archived one included), or when `people` (a
        member's view, `people_sql`) may not see it."""
        scope, params = people_sql(people) if people is not None else ("", [])
        sql = (
            f"SELECT (SELECT o.content FROM observations o WHERE o.entity_id = e.id ORDER BY o.id DESC LIMIT 1), "
            f"{_activity(self.dialect)}, e.metadata FROM entities e WHERE e.name = ? AND e.type = ? "
            f"AND {_trusted_active(self.dialect)} "
            f"AND EXISTS (SELECT 1 FROM tags t WHERE t.entity_id = e.id AND t.tag = ?) {scope}"
        )
        row = self.conn.execute(sql, (name, entity_type, project_tag, *params)).fetchone()
        return (row[0] or "", row[1], row[2]) if row else None

    def inbox(self, project: str, recipient: str, session: str | None = None) -> Inbox:
        """Unread deliveries for the recipient in the project (the message store's count, as `session` sees it),
        and whether that exact id was ever seen there, so a typo'd recipient does not read as an empty inbox."""
        from memesh.values import Inbox

        return Inbox(
            unread=self.unread_deliveries(recipient, project, session=session),  # type: ignore[attr-defined]
            known=self.recipient_seen(recipient, project),  # type: ignore[attr-defined]
        )

    def record_session_memories(self, session_id: str, ids: Sequence[int], source: str, when: str) -> None:
        """Remember that these memories reached the session (injected at start, or recalled); first source wins."""
        with self.transaction():
            self.conn.executemany(
                "INSERT INTO session_memories (session_id, entity_id, source, at) VALUES (?, ?, ?, ?) "
                "ON CONFLICT DO NOTHING",
                [(session_id, entity_id, source, when) for entity_id in dict.fromkeys(ids)],
            )

    def memories_given(self, session_id: str, ids: Sequence[int], sources: Sequence[str]) -> set[int]:
        """Which of these memories reached this session from one of `sources` (`injected`, `recalled`, `read`)."""
        if not ids or not sources:
            return set()
        rows = self.conn.execute(
            f"SELECT entity_id FROM session_memories WHERE session_id = ? AND source IN ({_marks(sources)}) "
            f"AND entity_id IN ({_marks(ids)})",
            (session_id, *sources, *ids),
        )
        return {int(row[0]) for row in rows}

    def record_read_memories(self, session_id: str, ids: Sequence[int], when: str) -> None:
        """Remember that these file memories were given with a Read of their file (source `read`); one SessionStart
        injected becomes `read` too, since it has now been given for the file. A recall keeps its source."""
        with self.transaction():
            self.conn.executemany(
                "INSERT INTO session_memories (session_id, entity_id, source, at) VALUES (?, ?, 'read', ?) "
                "ON CONFLICT (session_id, entity_id) DO UPDATE SET source = 'read' "
                "WHERE session_memories.source = 'injected'",
                [(session_id, entity_id, when) for entity_id in dict.fromkeys(ids)],
            )

    def credit_citations(self, session_id: str, ids: Sequence[int]) -> list[int]:
        """Count one recall hit for each cited memory that reached this session and was not credited yet (a miss an
        earlier Stop counted for it becomes this hit); returns the ids credited now (at most once per session)."""
        credited: list[int] = []
        was_missed: list[int] = []
        with self.transaction():
            for chunk in _chunks(sorted(set(ids))):
                rows = self.conn.execute(
                    "SELECT entity_id, missed FROM session_memories WHERE session_id = ? AND credited = 0 "
                    f"AND entity_id IN ({_marks(chunk)})",
                    (session_id, *chunk),
                )
                for entity_id, missed in rows:
                    credited.append(entity_id)
                    if missed:
                        was_missed.append(entity_id)
            for chunk in _chunks(credited):
                marks = _marks(chunk)
                self.conn.execute(
                    "UPDATE session_memories SET credited = 1, missed = 0 "
                    f"WHERE session_id = ? AND entity_id IN ({marks})",
                    (session_id, *chunk),
                )
                self.conn.execute(f"UPDATE entities SET recall_hits = recall_hits + 1 WHERE id IN ({marks})", chunk)
            for chunk in _chunks(was_missed):
                self.conn.execute(
                    "UPDATE entities SET recall_misses = CASE WHEN recall_misses > 0 THEN recall_misses - 1 ELSE 0 END "
                    f"WHERE id IN ({_marks(chunk)})",
                    chunk,
                )
        return credited

    def count_misses(self, session_id: str) -> list[int]:
        """Count one recall miss for each memory that reached this session and is neither cited nor already counted
        as missed there; returns those ids."""
        with self.transaction():
            missed = [
                row[0]
                for row in self.conn.execute(
                    "SELECT entity_id FROM session_memories WHERE session_id = ? AND credited = 0 AND missed = 0",
                    (session_id,),
                )
            ]
            for chunk in _chunks(missed):
                marks = _marks(chunk)
                self.conn.execute(
                    f"UPDATE session_memories SET missed = 1 WHERE session_id = ? AND entity_id IN ({marks})",
                    (session_id, *chunk),
                )
                self.conn.execute(f"UPDATE entities SET recall_misses = recall_misses + 1 WHERE id IN ({marks})", chunk)
        return missed

    def file_candidates(self, project_tag: str, file_tag: str, limit: int) -> list[CandidateRow]:
        """Active trusted memories carrying the `file:<basename>` tag and either the project tag or no project tag
        at all, newest first: an agent that remembers a file without knowing the project's id tags it with the file
        alone, and that memory is the project's as much as anyone's; another project's memory stays out."""
        sql = (
            f"SELECT {_columns(self.dialect)} FROM tags t {self.dialect.cross_join} entities e ON e.id = t.entity_id "
            f"WHERE t.tag = ? AND {_trusted_active(self.dialect)} "
            "AND (EXISTS (SELECT 1 FROM tags p WHERE p.entity_id = e.id AND p.tag = ?) "
            # A range, not LIKE (which ignores ASCII case and skips the (entity_id, tag) index).
            "OR NOT EXISTS (SELECT 1 FROM tags p WHERE p.entity_id = e.id AND p.tag >= 'project:' "
            "AND p.tag < 'project;')) "
            "ORDER BY e.id DESC LIMIT ?"
        )
        from memesh.values import CandidateRow

        return [CandidateRow(*row) for row in self.conn.execute(sql, (file_tag, project_tag, limit))]

    def guards(self, project_tag: str, limit: int) -> list[tuple[int, str, str, str, bool]]:
        """(id, name, guard JSON, first observation, whether the lesson carries `project_tag`) of active trusted
        memories that carry a guard."""
        guard = self.dialect.json_field("e.metadata", "guard")
        sql = (
            f"SELECT e.id, e.name, {guard}, COALESCE((SELECT o.content FROM observations o "
            "WHERE o.entity_id = e.id ORDER BY o.id LIMIT 1), ''), "
            "EXISTS (SELECT 1 FROM tags p WHERE p.entity_id = e.id AND p.tag = ?) FROM entities e "
            # The key's text first: most memories have no guard, and a substring test is cheaper than parsing JSON.
            f"WHERE {self.dialect.contains.format('e.metadata', _GUARD_KEY)} AND {guard} IS NOT NULL "
            f"AND {_trusted_active(self.dialect)} ORDER BY e.id DESC LIMIT ?"
        )
        rows = self.conn.execute(sql, (project_tag, limit))
        return [(row[0], row[1], str(row[2]), row[3], bool(row[4])) for row in rows]

    def guards_stopped(self, session_id: str, ids: Sequence[int]) -> set[int]:
        """Which of these lessons' guards already stopped a command in this session."""
        if not ids:
            return set()
        rows = self.conn.execute(
            f"SELECT entity_id FROM guard_stops WHERE session_id = ? AND entity_id IN ({_marks(ids)})",
            (session_id, *ids),
        )
        return {int(row[0]) for row in rows}

    def record_guard_stops(self, session_id: str, ids: Sequence[int], when: str) -> None:
        """Remember that these lessons' guards stopped a command in this session (each stops once per session)."""
        with self.transaction():
            self.conn.executemany(
                "INSERT INTO guard_stops (session_id, entity_id, stopped_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING",
                [(session_id, entity_id, when) for entity_id in dict.fromkeys(ids)],
            )
