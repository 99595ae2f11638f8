"""The connection underneath the store: pragmas, transactions, and helpers its queries share.

Several processes (the MCP server, the CLI, the HTTP server, hooks) write the same file at once. Each write runs in
one `BEGIN IMMEDIATE` transaction, which takes the write lock up front (a deferred transaction that upgrades later
can fail with SQLITE_BUSY no matter how long it waits), and a generous busy timeout lets writers queue instead of
failing with "database is locked".
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from memesh.errors import MemeshError

from memesh.store.sql import _CHUNK, SQLITE, SqlBase, _chunks, _dumps, _loads, _marks, shown_file

__all__ = ["BUSY_TIMEOUT_MS", "_CHUNK", "SqliteBase", "_chunks", "_dumps", "_loads", "_marks", "_statements"]

BUSY_TIMEOUT_MS = 30_000
MMAP_BYTES = 1 << 30  # the first GiB of the file; SQLite reads past it as before


def _statements(script: str) -> list[str]:
    """Split a migration script into statements (triggers keep their inner semicolons)."""
    statements: list[str] = []
    buffer = ""
    for line in script.splitlines(keepends=True):
        if line.strip().startswith("--"):
            continue
        buffer += line
        if sqlite3.complete_statement(buffer):
            statements.append(buffer.strip())
            buffer = ""
    if buffer.strip():
        statements.append(buffer.strip())
    return statements


class SqliteBase(SqlBase):
    """One connection to the database file, configured and migrated, and its transactions."""

    conn: sqlite3.Connection
    dialect = SQLITE

    def __init__(self, conn: sqlite3.Connection, *, read_only: bool = False) -> None:
        self.conn = conn
        self.read_only = read_only  # opened read-only: reads work, the first write is refused (SQLITE_READONLY)
        self.open_mode = "ro" if read_only else "rw"  # "immutable" when read as a file nothing else changes
        self._depth = 0

    def database_failure(self, exc: BaseException) -> MemeshError | None:
        """What a failure of this database means to the caller (full disk, read-only, locked, …), or None when
        `exc` is not the database's: for an operation that decides whether a failure stops its work."""
        from memesh.store.errors import translate

        return translate(exc)

    def configure(self) -> None:
        # Writers queue on the lock rather than failing fast: two processes writing at once is the normal case.
        self.conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        # With WAL, NORMAL is still crash-safe (a power cut may drop the last commits, never corrupt).
        self.conn.execute("PRAGMA synchronous = NORMAL")
        # Observations, tags and relations die with their entity (ON DELETE CASCADE) only when this is on.
        self.conn.execute("PRAGMA foreign_keys = ON")
        # Read the file through a memory map: a search walks hundreds of pages of the keyword index, and copying
        # each one in with a read() call cost about 1 ms of system time per recall at 100k memories. The mapped
        # pages are the OS page cache itself, not a private copy per process; writes still go through the WAL.
        self.conn.execute(f"PRAGMA mmap_size = {MMAP_BYTES}")

    def use_wal(self) -> None:
        """WAL lets readers (recall) run while another process writes, and makes commits cheap. Switched on after
        the migrations have accepted the file: the switch rewrites the file's header, and a file MeMesh refuses
        (another program's database) must be left exactly as it was."""
        self.conn.execute("PRAGMA journal_mode = WAL")

    def where(self) -> str:
        """The database in use, as doctor shows it: the engine and the file."""
        row = self.conn.execute("PRAGMA database_list").fetchone()
        return f"SQLite {shown_file(row[2]) if row and row[2] else '(in memory)'}"

    def _insert_id(self, sql: str, params: Sequence[Any]) -> int:
        return int(self.conn.execute(sql, params).lastrowid or 0)

    def _counter(self, name: str) -> int:
        row = self.conn.execute("SELECT value FROM counters WHERE name = ?", (name,)).fetchone()
        return int(row[0]) if row else 0

    def _has_table(self, table: str) -> bool:
        row = self.conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (table,)).fetchone()
        return row is not None

    @contextmanager
    def transaction(self) -> Iterator[None]:
        """One atomic unit: BEGIN IMMEDIATE at the outermost level, a savepoint when nested."""
        if self._depth:
            savepoint = f"sp_{self._depth}"
            self.conn.execute(f"SAVEPOINT {savepoint}")
            self._depth += 1
            try:
                yield
            except BaseException:
                if self.conn.in_transaction:  # SQLite may have rolled the whole transaction back (a full disk)
                    self.conn.execute(f"ROLLBACK TO {savepoint}")
                    self.conn.execute(f"RELEASE {savepoint}")
                raise
            finally:
                self._depth -= 1
            self.conn.execute(f"RELEASE {savepoint}")
            return
        # Read-only, a deferred BEGIN: an operation's reads in its transaction still work, its first write fails.
        self.conn.execute("BEGIN" if self.read_only else "BEGIN IMMEDIATE")
        self._depth = 1
        try:
            yield
        except BaseException:
            self._depth = 0
            if self.conn.in_transaction:  # SQLite has already rolled back after some errors (a full disk): the
                self.conn.execute("ROLLBACK")  # error to report is that one, not "no transaction is active"
            raise
        self._depth = 0
        try:
            self.conn.execute("COMMIT")
        except BaseException:
            if self.conn.in_transaction:
                self.conn.execute("ROLLBACK")
            raise
