"""The SQLite store's own writes: its migrations, and the FTS5 keyword index that mirrors the memories.

The writes of memories themselves are the engines' shared ones (`memesh.store.writes`).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Sequence
from datetime import UTC, datetime

from memesh.store.migrations import FTS_DROP, FTS_TABLES, MIGRATIONS, REFILLS_INDEX
from memesh.store.sqlite_base import SqliteBase, _marks, _statements
from memesh.store.writes import UncleanName, Writes, clean_text, cleaned, index_columns

__all__ = ["SqliteWrites", "UncleanName", "clean_text", "cleaned"]


class SqliteWrites(SqliteBase, Writes):
    """The schema's migrations and the FTS5 index; every other write is the shared one."""

    def migrate(self) -> list[tuple[int, str]]:
        applied: list[tuple[int, str]] = []
        with self.transaction():
            self.conn.execute(
                "CREATE TABLE IF NOT EXISTS schema_migrations "
                "(version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)"
            )
            done = {row[0] for row in self.conn.execute("SELECT version FROM schema_migrations")}
            if any(version not in done for version, _, _ in MIGRATIONS):
                from memesh.core.clean import clean_key, clean_label

                self.conn.create_function("memesh_key", 1, clean_key, deterministic=True)
                self.conn.create_function("memesh_label", 1, clean_label, deterministic=True)
            for version, name, sql in MIGRATIONS:
                if version in done:
                    continue
                for statement in _statements(sql):
                    self.conn.execute(statement)
                if version in REFILLS_INDEX:
                    self._fill_index()
                self.conn.execute(
                    "INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)",
                    (version, name, datetime.now(UTC).isoformat()),
                )
                applied.append((version, name))
        self.migrated = applied
        return applied

    def _index_keywords(self, entity_id: int, name: str, title: str | None, observations: Sequence[str]) -> None:
        self.conn.execute("DELETE FROM entities_fts WHERE rowid = ?", (entity_id,))
        self.conn.execute(
            "INSERT INTO entities_fts (rowid, name, title, observations) VALUES (?, ?, ?, ?)",
            (entity_id, *index_columns(name, title, observations)),
        )

    def _unindex(self, ids: Sequence[int]) -> None:
        self.conn.execute(f"DELETE FROM entities_fts WHERE rowid IN ({_marks(ids)})", ids)

    def rebuild_index(self, progress: Callable[[int, int], None] | None = None) -> int:
        """Rebuild the keyword index from the stored rows, in one transaction; returns how many memories it holds.

        Memories are untouched: only the index is dropped and written again, so a corrupted or emptied index
        comes back exactly as the rows say it should be. Nothing is embedded and no vector is touched.
        """
        with self.transaction():
            for statement in (*FTS_DROP, *FTS_TABLES):
                self.conn.execute(statement)
            return self._fill_index(progress)

    def after_copy(self) -> None:
        """The FTS5 index of the rows a copy wrote (AUTOINCREMENT already follows the ids they brought)."""
        self._fill_index()

    def _bookkeeping_refused(self, exc: Exception) -> bool:
        unwritable = (sqlite3.SQLITE_READONLY, sqlite3.SQLITE_FULL)
        return isinstance(exc, sqlite3.OperationalError) and exc.sqlite_errorcode & 0xFF in unwritable
