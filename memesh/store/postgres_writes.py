"""The PostgreSQL store's own writes: its migrations, and the postings table that is its keyword index.

A memory's index entry is rewritten in the transaction that writes the memory: its tokens are FTS5's own
(`sqlite_tokens`) for exactly the text the SQLite store indexes (`writes.index_columns`), and the triggers of
migration 1 keep the memory count, the token total and each token's memory count in step.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from typing import Any

from memesh.model import Entity, EntityWrite
from memesh.store.errors import not_granted, schema_behind
from memesh.store.postgres_base import MIGRATION_LOCK, PostgresBase
from memesh.store.postgres_migrations import MIGRATIONS
from memesh.store.sql import _CHUNK, _chunks, _marks
from memesh.store.sqlite_tokens import term_counts
from memesh.store.writes import Writes, index_columns

_INSERT_POSTINGS = (
    "INSERT INTO search_postings (term, entity_id, name_tf, title_tf, body_tf, doc_tokens) "
    "SELECT * FROM unnest(?::text[], ?::bigint[], ?::int[], ?::int[], ?::int[], ?::int[])"
)
_IDENTITIES = (
    "entities", "observations", "tags", "relations", "dream_proposals", "agent_messages", "agent_deliveries",
    "agent_message_events", "agent_receipts",
)  # fmt: skip
_INSERT_DOCS = "INSERT INTO search_docs (entity_id, tokens) SELECT * FROM unnest(?::bigint[], ?::int[])"


class _Batch:
    """Index rows for several memories, written with two statements."""

    def __init__(self) -> None:
        self.docs: tuple[list[int], list[int]] = ([], [])
        self.postings: tuple[list[Any], ...] = ([], [], [], [], [], [])

    def add(self, entity_id: int, name: str, title: str | None, observations: Sequence[str]) -> None:
        counts = term_counts(*index_columns(name, title, observations))
        tokens = sum(n + t + b for _, n, t, b in counts)
        self.docs[0].append(entity_id)
        self.docs[1].append(tokens)
        for term, name_tf, title_tf, body_tf in counts:
            for column, value in zip(self.postings, (term, entity_id, name_tf, title_tf, body_tf, tokens), strict=True):
                column.append(value)


class PostgresWrites(PostgresBase, Writes):
    """The schema's migrations and the postings; every other write is the shared one."""

    def migrate(self) -> list[tuple[int, str]]:
        """Apply the migrations this database has not recorded, each once, under the migration lock; the (version,
        name) of each applied. A role that may not change the schema (a team's member) is refused with what to do
        (`schema_behind`), and nothing is applied: the migrations run in one transaction, all or none."""
        from psycopg import errors

        pending = self._unapplied()
        if not pending:
            self.migrated = []
            return []
        if not self._may_migrate():
            raise schema_behind(pending)
        raw = self.conn.raw
        applied: list[tuple[int, str]] = []
        try:
            # A migration may rewrite every row (minutes at scale): the per-statement budget is for calls, not for it.
            with self.conn.unbounded(), raw.transaction():
                if self.conn.per_transaction:  # behind a pooler: the lock's wait bounded as a session's is
                    raw.execute(self.conn.per_transaction)
                raw.execute("SELECT pg_advisory_xact_lock(%s, %s)", (MIGRATION_LOCK, self.conn.scope))
                raw.execute("SET LOCAL statement_timeout = 0")
                raw.execute(
                    "CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, "
                    'name TEXT COLLATE "C" NOT NULL, applied_at TEXT COLLATE "C" NOT NULL)'
                )
                done = {row[0] for row in raw.execute("SELECT version FROM schema_migrations")}
                for version, name, sql in MIGRATIONS:
                    if version in done:
                        continue
                    if sql.strip():
                        raw.execute(sql)  # no parameters: one script of many statements
                    raw.execute(
                        "INSERT INTO schema_migrations (version, name, applied_at) VALUES (%s, %s, %s)",
                        (version, name, datetime.now(UTC).isoformat()),
                    )
                    applied.append((version, name))
        except errors.InsufficientPrivilege as exc:  # a table of the schema not this role's own: rolled back whole
            raise schema_behind(pending) from exc
        self.migrated = applied
        return applied

    def _unapplied(self) -> list[int]:
        """The versions this MeMesh knows that the database has not recorded (every one when it has no record)."""
        from psycopg import errors

        row = self.conn.raw.execute("SELECT to_regclass('schema_migrations') IS NOT NULL").fetchone()
        if not row or not row[0]:
            return [version for version, _, _ in MIGRATIONS]
        try:
            done = {row[0] for row in self.conn.raw.execute("SELECT version FROM schema_migrations")}
        except errors.InsufficientPrivilege as exc:  # granted nothing: every call would fail the same way
            raise not_granted() from exc
        return [version for version, _, _ in MIGRATIONS if version not in done]

    def _may_migrate(self) -> bool:
        """Whether this role may change the schema: CREATE in it, and (once migrated) a member of the role that owns
        its tables. Asked of the catalog rather than tried, so a member's open never takes the migration lock."""
        row = self.conn.raw.execute(
            "SELECT has_schema_privilege(current_schema(), 'CREATE') AND COALESCE((SELECT pg_has_role(c.relowner, "
            "'USAGE') FROM pg_class c WHERE c.oid = to_regclass('schema_migrations')), true)"
        ).fetchone()
        return bool(row and row[0])

    def save(self, write: EntityWrite) -> int:
        """`Writes.save` with its statements pipelined inside a transaction: those whose answers it reads (the new
        id, the stored observations and tags) each wait for the server, the rest (observations, tags, the index) go
        out together and are awaited once, as the save ends; a failure of any of them fails the save as before."""
        if not self.conn.in_transaction:
            return super().save(write)
        with self.conn.raw.pipeline():
            return super().save(write)

    def _index_keywords(self, entity_id: int, name: str, title: str | None, observations: Sequence[str]) -> None:
        counts = term_counts(*index_columns(name, title, observations))
        self.conn.execute(
            "SELECT memesh_index(?, ?::text[], ?::int[], ?::int[], ?::int[])",
            (entity_id, *([row[column] for row in counts] for column in range(4))),
        )

    def _unindex(self, ids: Sequence[int]) -> None:
        for chunk in _chunks(list(ids)):
            self.conn.execute(f"DELETE FROM search_postings WHERE entity_id IN ({_marks(chunk)})", chunk)
            self.conn.execute(f"DELETE FROM search_docs WHERE entity_id IN ({_marks(chunk)})", chunk)

    def _write(self, batch: _Batch) -> None:
        self.conn.execute(_INSERT_DOCS, batch.docs)
        if batch.postings[0]:
            self.conn.execute(_INSERT_POSTINGS, batch.postings)

    def rebuild_index(self, progress: Callable[[int, int], None] | None = None) -> int:
        """Rebuild the keyword index from the stored rows, in one transaction; returns how many memories it holds.

        Memories are untouched: only the postings are emptied and written again. Nothing is embedded and no vector
        is touched."""
        with self.transaction():
            self.conn.execute("TRUNCATE search_postings, search_docs, search_terms, search_term_deltas")
            self.conn.execute("DELETE FROM counter_deltas WHERE name IN ('search_docs', 'search_tokens')")
            self.conn.execute("UPDATE counters SET value = 0 WHERE name IN ('search_docs', 'search_tokens')")
            return self._fill_index(progress)

    def _fill_index(self, progress: Callable[[int, int], None] | None = None) -> int:
        """Index every stored memory into the (empty) index, a chunk of memories per statement."""
        ids = [row[0] for row in self.conn.execute("SELECT id FROM entities ORDER BY id")]
        for done, chunk in enumerate(_chunks(ids), start=1):
            self.index_loaded(self.load(chunk))
            if progress is not None:
                progress(min(done * _CHUNK, len(ids)), len(ids))
        return len(ids)

    def index_loaded(self, entities: Sequence[Entity]) -> None:
        """Index these memories' keywords, none of which is in the index yet (a fill, a copy)."""
        batch = _Batch()
        for entity in entities:
            batch.add(entity.id, entity.name, entity.title, entity.observations)
        if batch.docs[0]:
            self._write(batch)

    def after_copy(self) -> None:
        """The postings of the rows a copy wrote, and each identity moved past the ids they brought."""
        self._fill_index()
        for table in _IDENTITIES:
            self.conn.execute(
                f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), COALESCE(max(id), 0) + 1, false) FROM {table}"
            )

    def touch(self, ids: Sequence[int], when: str) -> None:
        """Count one access for each memory a recall returned: sent as a write transaction of its own whose answer
        is read before the connection's next statement (recall does not wait for it); inside a transaction, the
        shared `Writes.touch`. A database that cannot take the write still answers recall (`_bookkeeping_refused`)."""
        if not ids or self.read_only:
            return
        if self.conn.in_transaction:
            super().touch(ids, when)
            return
        from psycopg.sql import Literal

        listed = ",".join(str(int(entity_id)) for entity_id in ids)
        self.conn.send_write(
            f"UPDATE entities SET access_count = access_count + 1, "
            f"last_accessed_at = {Literal(when).as_string(self.conn.raw)} WHERE id = ANY('{{{listed}}}'::bigint[])",
            self._bookkeeping_refused,
        )

    def _bookkeeping_refused(self, exc: Exception) -> bool:
        from psycopg import errors

        return isinstance(exc, errors.ReadOnlySqlTransaction | errors.DiskFull | errors.InsufficientPrivilege)
