"""The store's self-checks for doctor that read the same on both engines: migrations, capture counts by week."""

from __future__ import annotations

from collections.abc import Sequence

from memesh.store.sql import SqlBase, _marks


class Health(SqlBase):
    """What doctor asks every database; the engine answers `integrity` and `index_matches` its own way."""

    migrations: tuple[tuple[int, str, str], ...]  # the engine's numbered migrations

    def integrity(self) -> str:
        """ "ok", or the engine's first complaint about the database."""
        raise NotImplementedError

    def index_matches(self) -> tuple[int, int]:
        """(memories, memories in the keyword index): equal when the index is whole."""
        raise NotImplementedError

    def missing_migrations(self) -> list[int]:
        """The numbered migrations this version knows that the database has not recorded."""
        applied = {row[0] for row in self.conn.execute("SELECT version FROM schema_migrations")}
        return sorted({version for version, _, _ in self.migrations} - applied)

    def recorded_version(self) -> int:
        """The newest migration the database has recorded (0: none)."""
        row = self.conn.execute("SELECT COALESCE(MAX(version), 0) FROM schema_migrations").fetchone()
        return int(row[0]) if row else 0

    def newer_migrations(self) -> list[int]:
        """Migrations the database has recorded that this version does not know (a newer MeMesh migrated it)."""
        known = {version for version, _, _ in self.migrations}
        recorded = [row[0] for row in self.conn.execute("SELECT version FROM schema_migrations")]
        return sorted(version for version in recorded if version not in known)

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
