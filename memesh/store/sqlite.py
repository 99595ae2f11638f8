"""The SQLite store: `open_store` and `SqliteStore`, every query and write MeMesh makes.

The store is split by concern: the connection, pragmas and transactions (`sqlite_base`), reads (`sqlite_reads`),
the keyword search (`sqlite_search`), writes with the migrations (`sqlite_writes`), staged proposals
(`sqlite_proposals`) and project-wide maintenance (`sqlite_projects`). Only these modules import sqlite3.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from memesh import paths
from memesh.store.errors import StoreError
from memesh.store.sqlite_base import BUSY_TIMEOUT_MS
from memesh.store.sqlite_briefing import SqliteBriefing
from memesh.store.sqlite_health import SqliteHealth
from memesh.store.sqlite_insights import SqliteInsights
from memesh.store.sqlite_memory_files import SqliteMemoryFiles
from memesh.store.sqlite_messages import SqliteMessages
from memesh.store.sqlite_open import open_as, opening_error
from memesh.store.sqlite_projects import SqliteProjects
from memesh.store.sqlite_proposals import SqliteProposals
from memesh.store.sqlite_search import SqliteSearch
from memesh.store.sqlite_writes import SqliteWrites


def open_store(path: Path | None = None) -> SqliteStore:
    """Open (creating if needed, owner-only) the database at `path`, default `paths.db_path()`, migrated."""
    return open_as(SqliteStore, path)


def open_readonly(path: Path | None = None) -> SqliteStore | None:
    """The database at `path` opened read-only, unmigrated (nothing is written to it); None when there is none."""
    target = path or paths.db_path()
    if not target.is_file():
        return None
    try:
        conn = sqlite3.connect(
            f"{target.resolve().as_uri()}?mode=ro", uri=True, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None
        )
        conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        conn.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()
    except sqlite3.Error as exc:
        raise StoreError(f"cannot read the database at {target}: {exc}", opening_error(exc)) from exc
    return SqliteStore(conn)


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
