"""The one translation of database failures into the spec's codes, with a message a person can act on.

SQLite's own exceptions never leave this package as they are: `translate` maps each kind (locked, damaged, not a
database, read-only, disk full, cannot open) to a MemeshError, and every transport reaches it through
`memesh.app.dispatch.guarded`. Messages never name a path: they may leave the machine (an MCP result, an HTTP body).
"""

from __future__ import annotations

import errno
import sqlite3

from memesh.errors import ErrorCode, MemeshError

_BY_PRIMARY: dict[int, tuple[str, ErrorCode, str]] = {
    sqlite3.SQLITE_BUSY: (
        "locked",
        ErrorCode.INTERNAL,
        "the database is locked by another process (waited 30 s); try again when it has finished",
    ),
    sqlite3.SQLITE_LOCKED: (
        "locked",
        ErrorCode.INTERNAL,
        "the database is locked by another process (waited 30 s); try again when it has finished",
    ),
    sqlite3.SQLITE_CORRUPT: (
        "corrupt",
        ErrorCode.INTERNAL,
        "the database file is damaged; run `memesh doctor`, or restore it from a backup (`memesh import`)",
    ),
    sqlite3.SQLITE_NOTADB: (
        "not-a-database",
        ErrorCode.INTERNAL,
        "the database file is not a SQLite database; check MEMESH_DB_PATH, or move the file aside",
    ),
    sqlite3.SQLITE_READONLY: (
        "read-only",
        ErrorCode.OPERATION_FAILED,
        "the database is read-only here: reads work, writes are refused; check the file's permissions",
    ),
    sqlite3.SQLITE_FULL: ("disk-full", ErrorCode.INTERNAL, "disk full: free some space, then try again"),
    sqlite3.SQLITE_CANTOPEN: (
        "cannot-open",
        ErrorCode.INTERNAL,
        "the database cannot be opened; check that its folder exists and is yours",
    ),
    sqlite3.SQLITE_PERM: (
        "cannot-open",
        ErrorCode.INTERNAL,
        "the database cannot be opened; check that its folder exists and is yours",
    ),
}


class StoreError(Exception):
    """The database could not be opened or used.

    str() names the file (for the person at the CLI); `error` says why without it, for an answer that leaves the
    machine's process (an MCP result, an HTTP body).
    """

    def __init__(self, message: str, error: MemeshError) -> None:
        super().__init__(message)
        self.error = error

    @property
    def reason(self) -> str:
        return self.error.message


def _error(kind: str, code: ErrorCode, message: str) -> MemeshError:
    return MemeshError(code, message, {"store": kind})


def translate(exc: BaseException) -> MemeshError | None:
    """The spec's error for a database failure, or None when `exc` is not one (a bug, to be reported as such)."""
    if isinstance(exc, StoreError):
        return exc.error
    if isinstance(exc, sqlite3.Error):
        primary = getattr(exc, "sqlite_errorcode", 0) & 0xFF
        if primary in _BY_PRIMARY:
            return _error(*_BY_PRIMARY[primary])
        if primary == sqlite3.SQLITE_IOERR:
            return _error("io", ErrorCode.INTERNAL, f"the database could not be read or written ({exc})")
        return _error("database", ErrorCode.INTERNAL, f"database error: {exc}")
    if isinstance(exc, OSError) and exc.errno == errno.ENOSPC:
        return _error("disk-full", ErrorCode.INTERNAL, "disk full: free some space, then try again")
    return None


def why(exc: BaseException) -> str:
    """What went wrong, without a path: the translated message, an OSError's strerror, or the type's name."""
    error = translate(exc)
    if error is not None:
        return error.message
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror
    return type(exc).__name__
