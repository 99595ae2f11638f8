"""The SQLite store: `open_store` and `SqliteStore`, every query and write MeMesh makes.

The store is split by concern: the connection, pragmas and transactions (`sqlite_base`), reads (`sqlite_reads`),
the keyword search (`sqlite_search`), writes with the migrations (`sqlite_writes`), staged proposals
(`sqlite_proposals`) and project-wide maintenance (`sqlite_projects`). Only these modules import sqlite3.
"""

from __future__ import annotations

import os
import sqlite3
import time
from collections.abc import Callable
from pathlib import Path

from memesh import paths
from memesh.errors import ErrorCode, MemeshError
from memesh.store.errors import StoreError, translate, why
from memesh.store.migrations import MIGRATIONS
from memesh.store.sqlite_base import BUSY_TIMEOUT_MS
from memesh.store.sqlite_briefing import SqliteBriefing
from memesh.store.sqlite_health import SqliteHealth
from memesh.store.sqlite_insights import SqliteInsights
from memesh.store.sqlite_memory_files import SqliteMemoryFiles
from memesh.store.sqlite_messages import SqliteMessages
from memesh.store.sqlite_projects import SqliteProjects
from memesh.store.sqlite_proposals import SqliteProposals
from memesh.store.sqlite_search import SqliteSearch
from memesh.store.sqlite_writes import SqliteWrites


def _opening(exc: BaseException) -> MemeshError:
    """The error for a database that would not open: the translated one, or "cannot open" with the reason."""
    error = translate(exc)
    if error is not None and error.data.get("store") not in (None, "database", "io"):
        return error
    return _cannot_open(f"cannot open the database: {why(exc)}")


def _cannot_open(message: str) -> MemeshError:
    return MemeshError(ErrorCode.INTERNAL, message, {"store": "cannot-open"})


def open_store(path: Path | None = None) -> SqliteStore:
    """Open (creating if needed, owner-only) the database at `path`, default `paths.db_path()`, migrated."""
    target = path or paths.db_path()
    problem = paths.db_path_problem() if path is None else None
    if problem is not None:
        raise StoreError(
            f"cannot open the database at {target}: {problem}", _cannot_open(f"cannot open the database: {problem}")
        )
    try:
        paths.ensure_private_dir(target.parent)
        if not target.exists():
            # Created by us with mode 0600 before SQLite opens it; SQLite gives -wal/-shm the same mode.
            os.close(os.open(target, os.O_CREAT | os.O_WRONLY, 0o600))
        conn = sqlite3.connect(target, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None, check_same_thread=False)
    except (OSError, sqlite3.Error) as exc:
        raise StoreError(f"cannot open the database at {target}: {exc}", _opening(exc)) from exc
    store = SqliteStore(conn)
    try:
        _while_busy(store.configure)
        _while_busy(store.migrate)
        _while_busy(store.use_wal)
    except sqlite3.Error as exc:
        conn.close()
        unwritable = exc.sqlite_errorcode & 0xFF in (sqlite3.SQLITE_READONLY, sqlite3.SQLITE_FULL)
        if unwritable and (read_only := _open_read_only(target)) is not None:
            return read_only
        raise StoreError(f"cannot use the database at {target}: {exc}", _opening(exc)) from exc
    return store


def open_readonly(path: Path | None = None) -> SqliteStore | None:
    """The database at `path` opened read-only, unmigrated (nothing is written to it); None when there is none.

    Where the file or its folder cannot be written (a backup, a read-only mount), a database in WAL mode cannot be
    read the usual way (SQLite needs its -shm). Then, with no write-ahead log beside it or an empty one, the file is
    read as immutable (nothing in the log to miss); with a non-empty log it is refused rather than read without
    the changes still in it. The store's `open_mode` says which way it was opened ("ro" or "immutable").
    """
    target = path or paths.db_path()
    if not target.is_file():
        return None
    try:
        return _reading(target, "mode=ro")
    except sqlite3.Error as exc:
        first = exc
    # An immutable read skips the write-ahead log (and a rollback journal a crash left): only safe when they are empty.
    for log in (Path(f"{target}-wal"), Path(f"{target}-journal")):
        try:
            pending = log.stat().st_size
        except OSError:
            pending = 0
        if pending > 0:
            kind = "write-ahead log" if log.name.endswith("-wal") else "rollback journal"
            message = (
                f"cannot read the database at {target} where it is: its {kind} ({log.name}) holds changes that "
                "only a writable location can read; open it once where it can be written, then try again"
            )
            raise StoreError(message, _cannot_open(message))
    try:
        return _reading(target, "mode=ro&immutable=1")
    except sqlite3.Error:
        raise StoreError(f"cannot read the database at {target}: {first}", _opening(first)) from first


def _reading(target: Path, options: str) -> SqliteStore:
    """A read-only connection with `options`, proven by a first read (closed again when that read fails)."""
    conn = sqlite3.connect(
        f"{target.resolve().as_uri()}?{options}", uri=True, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None
    )
    try:
        conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        conn.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()
    except sqlite3.Error:
        conn.close()
        raise
    store = SqliteStore(conn, read_only=True)
    store.open_mode = "immutable" if "immutable=1" in options else "ro"
    return store


def _open_read_only(target: Path) -> SqliteStore | None:
    """The database opened for reading only, when it cannot be written (a read-only file or folder, a full disk)
    and is already a complete MeMesh database; None otherwise. Recall and export then work; a write is refused
    with the read-only error."""
    expected = {version for version, _, _ in MIGRATIONS}
    # mode=ro reads a WAL database while its -shm can be used; immutable=1 when not even that (a read-only folder).
    for options in ("mode=ro", "mode=ro&immutable=1"):
        conn: sqlite3.Connection | None = None
        try:
            conn = sqlite3.connect(
                f"{target.absolute().as_uri()}?{options}", uri=True, isolation_level=None, check_same_thread=False
            )
            done = {row[0] for row in conn.execute("SELECT version FROM schema_migrations")}
        except sqlite3.Error:
            if conn is not None:
                conn.close()
            continue
        if not expected <= done:
            conn.close()
            return None
        conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        return SqliteStore(conn, read_only=True)
    return None


def _while_busy(step: Callable[[], None]) -> None:
    """Run an idempotent set-up step, retrying while another process holds a lock it needs.

    Switching a database into WAL (and the first read of a file another process is just creating) can answer
    SQLITE_BUSY at once, without waiting on the busy timeout, when several processes open one new file together.
    """
    deadline = time.monotonic() + BUSY_TIMEOUT_MS / 1000
    delay = 0.005
    while True:
        try:
            step()
            return
        except sqlite3.OperationalError as exc:
            busy = exc.sqlite_errorcode & 0xFF in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED)
            if not busy or time.monotonic() + delay > deadline:
                raise
        time.sleep(delay)
        delay = min(delay * 2, 0.1)


class SqliteStore(
    SqliteMemoryFiles,
    SqliteWrites,
    SqliteSearch,
    SqliteBriefing,
    SqliteHealth,
    SqliteInsights,
    SqliteProposals,
    SqliteProjects,
    SqliteMessages,
):
    """Every query and write MeMesh makes; operations reach it only through their narrow protocols."""
