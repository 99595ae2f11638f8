"""A PostgreSQL database, for the work `memesh kg rename-project` does on "the database file" (the counterpart of
memesh.adapters.database_file for a URL): reads through an ordinary connection (a read of PostgreSQL writes and
creates nothing), the preview run on the database itself inside a transaction that is rolled back, and the backup
a SQLite copy of every row (`memesh db copy`'s rows) in the local backups folder, restored by `memesh db copy`.

Each open that fails is Failure(operation.failed) with the store's reason, which names no host or password.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from returns.result import Failure, Result, Success

from memesh import paths
from memesh.errors import MemeshError
from memesh.store.errors import StoreError, translate
from memesh.store.postgres import PostgresStore, open_postgres, redacted

T = TypeVar("T")


class _Undo(Exception):
    """Raised to roll back the preview's transaction."""


class SharedDatabase:
    """The database at a postgresql:// URL, open: read, previewed, backed up and written as the file's adapter is."""

    def __init__(self, store: PostgresStore, url: str) -> None:
        self.store = store
        self.url = url

    def on_a_private_copy(self, work: Callable[[PostgresStore], Result[T, MemeshError]]) -> Result[T, MemeshError]:
        """`work` on the database itself, in a transaction rolled back afterwards: no other writer sees it, and it
        leaves nothing behind (the rename's counts are the real ones, the write lock held only while it runs)."""
        answered: list[Result[T, MemeshError]] = []
        try:
            with self.store.transaction():
                answered.append(work(self.store))
                raise _Undo
        except _Undo:
            return answered[0]
        except StoreError as exc:
            return Failure(MemeshError.failed(str(exc)))

    def can_write(self) -> bool:
        """Whether this role may write MeMesh's tables (a read-only role or replica cannot)."""
        row = self.store.conn.execute(
            "SELECT has_table_privilege('entities', 'UPDATE') AND NOT pg_is_in_recovery()"
        ).fetchone()
        return bool(row and row[0])

    def backup(self, name: str) -> Result[Path, MemeshError]:
        """Every row copied into a new SQLite database, backups/<name> in the local MeMesh folder, owner-only."""
        from memesh.store.sqlite import open_store

        target = paths.db_path().parent / "backups" / name
        try:
            target.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            copy = open_store(target)
            try:
                with self.store.transaction(), copy.transaction():
                    for table, columns in self.store.copied_tables():
                        for rows in self.store.rows_of(table, columns):
                            copy.put_rows(table, columns, rows)
                    copy.after_copy()
            finally:
                copy.close()
        except (OSError, StoreError) as exc:
            target.unlink(missing_ok=True)
            return Failure(MemeshError.failed(str(exc)))
        return Success(target)

    def restore_command(self, backup: Path) -> str:
        """The command that puts `backup` back: a copy into an empty database (this one emptied, or a new one)."""
        return f"memesh db copy --from {backup} --to <an empty database, e.g. {redacted(self.url)} emptied>"

    def database_failure(self, exc: Exception) -> MemeshError | None:
        """The spec's error for a database failure raised during a change, or None when `exc` is not one."""
        return translate(exc)

    def close(self) -> None:
        self.store.close()


class SharedDatabaseAt:
    """The PostgreSQL database at `url`, opened when asked."""

    def __init__(self, url: str) -> None:
        self.url = url

    def exists(self) -> bool:
        return True  # a URL names a database that is there or does not open: the open says which

    def _open(self) -> Result[SharedDatabase, MemeshError]:
        try:
            return Success(SharedDatabase(open_postgres(self.url), self.url))
        except StoreError as exc:
            return Failure(MemeshError.failed(str(exc)))

    def open_readonly(self) -> Result[SharedDatabase | None, MemeshError]:
        """The database for reading (a PostgreSQL read writes nothing)."""
        opened: Result[SharedDatabase | None, MemeshError] = self._open()
        return opened

    def open_for_writing(self) -> Result[SharedDatabase, MemeshError]:
        return self._open()
