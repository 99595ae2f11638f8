"""A database the TypeScript MeMesh wrote, read without touching it (`memesh db copy --from`, `memesh import`): a
private copy is adopted and read instead, so what is carried over is exactly what adoption in place would keep.
"""

from __future__ import annotations

import shutil
import sqlite3
import tempfile
from pathlib import Path

from memesh.store.errors import StoreError
from memesh.store.sqlite import SqliteStore
from memesh.store.sqlite_adoption import shape
from memesh.store.sqlite_base import BUSY_TIMEOUT_MS
from memesh.store.sqlite_open import open_as, opening_error


class AdoptedCopy(SqliteStore):
    """The adopted private copy; closing it deletes it (its folder is mkdtemp's: owner-only)."""

    folder: Path | None = None

    def close(self) -> None:
        super().close()
        if self.folder is not None:
            shutil.rmtree(self.folder, ignore_errors=True)


def open_if_original(path: Path) -> SqliteStore | None:
    """An adopted private copy of the TypeScript MeMesh's database at `path`, or None when the file is not one
    (or is not there). The file is only read: not migrated, not re-moded, no side file made when none is needed.
    StoreError when it is one but cannot be copied."""
    if not path.is_file():
        return None
    try:
        source = _reading(path)
    except sqlite3.Error:
        return None  # not readable as a database: the usual open says why
    folder: Path | None = None
    try:
        if shape(source) != "original":
            return None
        folder = Path(tempfile.mkdtemp(prefix="memesh-original-"))
        copy_path = folder / "knowledge-graph.db"
        copy = sqlite3.connect(copy_path)
        try:
            source.backup(copy)
        finally:
            copy.close()
    except (OSError, sqlite3.Error) as exc:
        if folder is not None:
            shutil.rmtree(folder, ignore_errors=True)
        raise StoreError(f"cannot copy the database at {path}: {exc}", opening_error(exc)) from exc
    finally:
        source.close()
    try:
        store = open_as(AdoptedCopy, copy_path, backup_before_adopting=False)
    except StoreError:
        shutil.rmtree(folder, ignore_errors=True)
        raise
    store.folder = folder
    return store


def _reading(path: Path) -> sqlite3.Connection:
    """A read-only connection to another program's file, proven by a first read.

    With nothing waiting in a write-ahead log or rollback journal, the file is read as immutable: SQLite then makes
    no -wal or -shm beside a file this command only reads (in a folder that may not be the user's to write). With
    changes waiting there, it is read the usual way, which needs the -shm the original's own processes keep.
    """
    waiting = any(side.is_file() and side.stat().st_size > 0 for side in (Path(f"{path}-wal"), Path(f"{path}-journal")))
    options = "mode=ro" if waiting else "mode=ro&immutable=1"
    conn = sqlite3.connect(f"{path.absolute().as_uri()}?{options}", uri=True, timeout=BUSY_TIMEOUT_MS / 1000)
    try:
        conn.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()
    except sqlite3.Error:
        conn.close()
        raise
    return conn
