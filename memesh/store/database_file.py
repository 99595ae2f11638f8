"""The database file itself, for work done on the file rather than through the usual connection (`memesh kg
rename-project`): a read-only open that writes and creates nothing, a private temporary copy to try a change on, a
writable open that can tell whether it may really write, and a consistent backup beside it.

Each open that fails is Failure(operation.failed) with the store's reason as its message; the operation words what
it means for the person (nothing was changed, the preview failed, …).
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from returns.result import Failure, Result, Success

from memesh import paths
from memesh.errors import MemeshError
from memesh.store.errors import StoreError, translate
from memesh.store.sqlite import SqliteStore, open_readonly, open_store

T = TypeVar("T")


class ReadOnlyDatabase:
    """The database opened read-only and unmigrated: nothing is written to it."""

    def __init__(self, store: SqliteStore) -> None:
        self.store = store

    def on_a_private_copy(self, work: Callable[[SqliteStore], Result[T, MemeshError]]) -> Result[T, MemeshError]:
        """`work` on a copy of this database in a private temporary folder (mkdtemp: owner-only), opened and
        migrated like the real one, and deleted afterwards; Failure with the reason when the copy cannot be made."""
        folder = Path(tempfile.mkdtemp(prefix="memesh-rename-preview-"))
        try:
            copy_path = folder / "preview.db"
            try:
                self.store.backup_to(copy_path)
                copy = open_store(copy_path)
            except StoreError as exc:
                return Failure(MemeshError.failed(str(exc)))
            try:
                return work(copy)
            finally:
                copy.close()
        finally:
            shutil.rmtree(folder, ignore_errors=True)

    def close(self) -> None:
        self.store.close()


class WritableDatabase:
    """The database opened for writing (migrated), with what a change on the whole file needs first."""

    def __init__(self, store: SqliteStore, path: Path) -> None:
        self.store = store
        self.path = path

    def can_write(self) -> bool:
        """Whether writes will land: SQLite opens a file it may not write read-only without a word."""
        return not self.store.read_only and os.access(self.path, os.W_OK)

    def backup(self, name: str) -> Result[Path, MemeshError]:
        """A consistent copy (write-ahead log included) as backups/<name> beside the database, owner-only."""
        target = self.path.parent / "backups" / name
        try:
            self.store.backup_to(target)
        except (OSError, StoreError) as exc:
            return Failure(MemeshError.failed(str(exc)))
        return Success(target)

    def restore_command(self, backup: Path) -> str:
        """The command that puts `backup` back (with every memesh process stopped)."""
        return f"sqlite3 {self.path} \".restore '{backup}'\""

    def database_failure(self, exc: Exception) -> MemeshError | None:
        """The spec's error for a database failure raised during a change, or None when `exc` is not one."""
        return translate(exc)

    def close(self) -> None:
        self.store.close()


class DatabaseFile:
    """The database file at `path` (default: this machine's, `paths.db_path()`)."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path or paths.db_path()

    def exists(self) -> bool:
        return self.path.is_file()

    def open_readonly(self) -> Result[ReadOnlyDatabase | None, MemeshError]:
        """The database read-only (None when there is none: nothing is created)."""
        try:
            store = open_readonly(self.path)
        except StoreError as exc:
            return Failure(MemeshError.failed(str(exc)))
        return Success(None if store is None else ReadOnlyDatabase(store))

    def open_for_writing(self) -> Result[WritableDatabase, MemeshError]:
        try:
            store = open_store(self.path)
        except StoreError as exc:
            return Failure(MemeshError.failed(str(exc)))
        return Success(WritableDatabase(store, self.path))
