"""The store's self-checks for doctor: integrity, migrations, the keyword index, and capture counts by week."""

from __future__ import annotations

from collections.abc import Sequence

from memesh.store.migrations import MIGRATIONS
from memesh.store.sqlite_base import SqliteBase, _marks


class SqliteHealth(SqliteBase):
    def integrity(self) -> str:
        """SQLite's quick_check: "ok", or its first complaint."""
        row = self.conn.execute("PRAGMA quick_check(1)").fetchone()
        return str(row[0]) if row else "no answer"

    def missing_migrations(self) -> list[int]:
        """The numbered migrations this version knows that the database has not recorded."""
        applied = {row[0] for row in self.conn.execute("SELECT version FROM schema_migrations")}
        return sorted({version for version, _, _ in MIGRATIONS} - applied)

    def index_matches(self) -> tuple[int, int]:
        """(memories, rows in the keyword index): equal when the index is whole."""
        entities = self.conn.execute("SELECT count(*) FROM entities").fetchone()[0]
        indexed = self.conn.execute("SELECT count(*) FROM entities_fts").fetchone()[0]
        return int(entities), int(indexed)

    def created_between(self, types: Sequence[str], start: str, end: str) -> dict[str, int]:
        """How many memories of each type were created in [start, end) (SQLite time strings)."""
        counts = dict.fromkeys(types, 0)
        rows = self.conn.execute(
            f"SELECT type, count(*) FROM entities WHERE type IN ({_marks(types)}) AND created_at >= ? "
            "AND created_at < ? GROUP BY type",
            (*types, start, end),
        )
        counts.update({kind: int(count) for kind, count in rows})
        return counts
