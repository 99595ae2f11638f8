"""The SQLite store's part of project-wide maintenance: the metadata it reads through JSON1, and backups."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from memesh.store.projects import Projects
from memesh.store.sqlite_base import SqliteBase
from memesh.values import RenameRefused

__all__ = ["RenameRefused", "SqliteProjects"]


class SqliteProjects(SqliteBase, Projects):
    """Listing and renaming projects across every carrier, and a consistent copy of the whole file."""

    def _project_metadata(self, project: str) -> list[tuple[int, str]]:
        rows = self.conn.execute(
            "SELECT id, metadata FROM entities WHERE json_valid(metadata) AND json_extract(metadata, '$.project') = ?",
            (project,),
        )
        return [(int(entity_id), str(text)) for entity_id, text in rows.fetchall()]

    def backup_to(self, target: Path) -> None:
        """A consistent copy of the whole database (WAL included) in `target`, written owner-only."""
        target.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        copy = sqlite3.connect(target)
        try:
            self.conn.backup(copy)
        finally:
            copy.close()
        target.chmod(0o600)
