"""The SQLite store: `open_store` and `SqliteStore`, every query and write MeMesh makes, in one file.

The queries both engines share are split by concern (`reads`, `writes`, `briefing`, `insights`, `proposals`,
`messages`, `projects`, `memory_files`, `health`); the SQLite modules add the connection, pragmas and transactions
(`sqlite_base`), the FTS5 keyword index (`sqlite_writes`, `sqlite_search`) and what only a file has (backups,
pages, integrity). Only the sqlite_* modules import sqlite3.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import TYPE_CHECKING

from memesh import paths
from memesh.store.briefing import Briefing
from memesh.store.copying import Copying
from memesh.store.errors import StoreError
from memesh.store.graph import Graph
from memesh.store.insights import Insights
from memesh.store.members import Members
from memesh.store.memory_files import MemoryFiles
from memesh.store.oauth import OAuthGrants
from memesh.store.proposals import Proposals
from memesh.store.sqlite_base import BUSY_TIMEOUT_MS
from memesh.store.sqlite_health import SqliteHealth
from memesh.store.sqlite_messages import SqliteMessages
from memesh.store.sqlite_open import cannot_open_error, open_as, opening_error, owner_only
from memesh.store.sqlite_projects import SqliteProjects
from memesh.store.sqlite_search import SqliteSearch
from memesh.store.sqlite_writes import SqliteWrites

if TYPE_CHECKING:
    from memesh.settings import Settings


def open_store(path: Path | None = None, *, settings: Settings | None = None) -> SqliteStore:
    """Open (creating if needed, owner-only) the database at `path`, default `paths.db_path()`, migrated; the file
    `settings` configure when given (memesh.store.open)."""
    return open_as(SqliteStore, path, settings=settings)


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
            raise StoreError(message, cannot_open_error(message))
    try:
        return _reading(target, "mode=ro&immutable=1")
    except sqlite3.Error:
        raise StoreError(f"cannot read the database at {target}: {first}", opening_error(first)) from first


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
    owner_only(target)  # like every open: a read-only one too (spec: kg rename-project's listing and dry run)
    store = SqliteStore(conn, read_only=True)
    store.open_mode = "immutable" if "immutable=1" in options else "ro"
    return store


class SqliteStore(
    SqliteWrites,
    SqliteSearch,
    SqliteHealth,
    SqliteProjects,
    SqliteMessages,
    MemoryFiles,
    Briefing,
    Insights,
    Graph,
    Proposals,
    Copying,
    Members,
    OAuthGrants,
):
    """Every query and write MeMesh makes; operations reach it only through their narrow protocols."""
