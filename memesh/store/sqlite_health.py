"""The SQLite store's self-checks for doctor: the file's integrity and the FTS5 index's row count."""

from __future__ import annotations

from memesh.store.health import Health
from memesh.store.migrations import MIGRATIONS
from memesh.store.sqlite_base import SqliteBase


class SqliteHealth(SqliteBase, Health):
    migrations = MIGRATIONS

    def integrity(self) -> str:
        """SQLite's quick_check: "ok", or its first complaint."""
        row = self.conn.execute("PRAGMA quick_check(1)").fetchone()
        return str(row[0]) if row else "no answer"

    def index_matches(self) -> tuple[int, int]:
        """(memories, rows in the keyword index): equal when the index is whole."""
        entities = self.conn.execute("SELECT count(*) FROM entities").fetchone()[0]
        indexed = self.conn.execute("SELECT count(*) FROM entities_fts").fetchone()[0]
        return int(entities), int(indexed)

    def unwritable(self) -> list[str]:
        """Nothing, or the whole file when it was opened read-only (its permissions refuse writes)."""
        return ["the database file"] if self.read_only else []
