"""A database the TypeScript MeMesh wrote, read without touching it (`memesh db copy --from`, `memesh import`): a
private copy is adopted and read instead, so what is carried over is exactly what adoption in place would keep.
"""

from __future__ import annotations

import shutil
import sqlite3
import tempfile
from pathlib import Path

from memesh.store.errors import StoreError
from memesh.store.sqlite import SqliteStore, open_readonly
from memesh.store.sqlite_adoption import shape
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
    (or is not there). The file itself is only read. StoreError when it is one but cannot be copied."""
    try:
        source = open_readonly(path)
    except StoreError:
        return None  # not readable as a database: the usual open says why
    if source is None:
        return None
    folder: Path | None = None
    try:
        if shape(source.conn) != "original":
            return None
        folder = Path(tempfile.mkdtemp(prefix="memesh-original-"))
        copy_path = folder / "knowledge-graph.db"
        copy = sqlite3.connect(copy_path)
        try:
            source.conn.backup(copy)
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
