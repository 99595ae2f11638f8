"""The SQLite store's part of project-wide maintenance: the metadata it reads through JSON1, and backups."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

from memesh.store.projects import Projects
from memesh.store.sqlite_base import SqliteBase

__all__ = ["SqliteProjects"]


class SqliteProjects(SqliteBase, Projects):
    """Listing and renaming projects across every carrier, and a consistent copy of the whole file."""

    def _project_metadata(self, project: str) -> list[tuple[int, str]]:
        rows = self.conn.execute(
            "SELECT id, metadata FROM entities WHERE json_valid(metadata) AND json_extract(metadata, '$.project') = ?",
            (project,),
        )
        return [(int(entity_id), str(text)) for entity_id, text in rows.fetchall()]

    def backup_to(self, target: Path) -> None:
        """A consistent copy of the whole database (WAL included) in `target`, owner-only from its first byte.

        The copy is written under a temporary name in the same folder, flushed to disk, then renamed: a kill or a
        full disk mid-copy leaves no partial file under `target` (and a failure removes the temporary one)."""
        target.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        # mkstemp creates the file 0600 whatever the umask; SQLite then writes into that empty file.
        import tempfile  # (shutil, random): only a rename's backup needs it

        handle, name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".partial", dir=target.parent)
        os.close(handle)
        partial = Path(name)
        try:
            copy = sqlite3.connect(partial)
            try:
                self.conn.backup(copy)
            finally:
                copy.close()
            _fsync(partial)
            partial.replace(target)
        except BaseException:
            partial.unlink(missing_ok=True)
            raise
        _fsync(target.parent)  # the rename itself survives a power cut


def _fsync(path: Path) -> None:
    descriptor = os.open(path, os.O_RDONLY)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)
