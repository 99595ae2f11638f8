"""The one translation of database failures into the spec's codes, with a message a person can act on.

Neither engine's exceptions leave this package as they are: `translate` maps each kind (locked, damaged, not a
database, read-only, disk full, cannot open) to a MemeshError, SQLite's by its result code and PostgreSQL's by its
SQLSTATE, and every transport reaches it through `memesh.app.dispatch.guarded`. Messages never name a path, a host
or a password: they may leave the machine (an MCP result, an HTTP body).
"""

from __future__ import annotations

import errno
import sqlite3
import sys

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
    psycopg = sys.modules.get("psycopg")  # a psycopg error can only be raised once psycopg is imported
    if psycopg is not None and isinstance(exc, psycopg.Error):
        return translate_postgres(exc)
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


_UNREACHABLE = (
    "the database server cannot be reached, or refused the connection (check that it runs, and the address, "
    "database name and credentials in the URL: MEMESH_DATABASE_URL, or `database` in config.json)"
)
# By SQLSTATE, then by its class (the first two characters).
_BY_SQLSTATE: dict[str, tuple[str, ErrorCode, str]] = {
    "55P03": ("locked", ErrorCode.INTERNAL, "the database is locked by another writer (waited 30 s); try again"),
    "40P01": ("locked", ErrorCode.INTERNAL, "the database broke a deadlock between two writers; try again"),
    "40001": ("locked", ErrorCode.INTERNAL, "the database could not serialize two writers; try again"),
    "53100": ("disk-full", ErrorCode.INTERNAL, "the database server's disk is full: free some space, then try again"),
    "25006": (
        "read-only",
        ErrorCode.OPERATION_FAILED,
        "the database is read-only here (a standby, or a read-only session): reads work, writes are refused",
    ),
    "42501": (
        "read-only",
        ErrorCode.OPERATION_FAILED,
        "the database role may not do this here (reads work where it may read); ask the database's owner",
    ),
    "3D000": ("cannot-open", ErrorCode.INTERNAL, "the database the URL names does not exist; check the URL"),
    "28P01": ("cannot-open", ErrorCode.INTERNAL, "the database refused the credentials in the URL"),
    "28000": ("cannot-open", ErrorCode.INTERNAL, "the database refused this role or host; check the URL"),
    "53300": ("cannot-open", ErrorCode.INTERNAL, "the database server has no free connection now; try again"),
    "57P01": ("cannot-open", ErrorCode.INTERNAL, "the database server is shutting down; try again when it is up"),
    "57P02": ("cannot-open", ErrorCode.INTERNAL, "the database server restarted; try again"),
    "57P03": ("cannot-open", ErrorCode.INTERNAL, "the database server is starting up; try again in a moment"),
    "XX001": ("corrupt", ErrorCode.INTERNAL, "the database server reports damaged data; restore it from a backup"),
    "XX002": ("corrupt", ErrorCode.INTERNAL, "the database server reports a damaged index; reindex it (REINDEX)"),
}
_BY_CLASS: dict[str, tuple[str, ErrorCode, str]] = {
    "08": ("cannot-open", ErrorCode.INTERNAL, _UNREACHABLE),
    "53": ("cannot-open", ErrorCode.INTERNAL, "the database server is out of resources now; try again"),
    "57": ("cannot-open", ErrorCode.INTERNAL, "the database server stopped this session; try again"),
}


def translate_postgres(exc: BaseException | None, *, kind: str | None = None, detail: str = "") -> MemeshError:
    """The spec's error for a PostgreSQL failure (a psycopg error, psycopg missing, or a `kind` with its `detail`),
    with a message that names no host or password: libpq's own texts name the server, so they are never passed on,
    only the server's primary message for failures of a statement."""
    if kind is not None:
        return _error(kind, ErrorCode.INTERNAL, f"cannot use the database: {detail}")
    if isinstance(exc, ImportError):
        message = "a PostgreSQL database URL needs the postgres extra: pip install 'memesh[postgres]'"
        return _error("cannot-open", ErrorCode.INTERNAL, message)
    sqlstate = str(getattr(exc, "sqlstate", None) or "")
    if sqlstate in _BY_SQLSTATE:
        return _error(*_BY_SQLSTATE[sqlstate])
    if sqlstate[:2] in _BY_CLASS:
        return _error(*_BY_CLASS[sqlstate[:2]])
    if not sqlstate:  # raised by the client (no server answered, or the connection broke): libpq names the host
        return _error("cannot-open", ErrorCode.INTERNAL, _UNREACHABLE)
    diag = getattr(exc, "diag", None)
    primary = getattr(diag, "message_primary", None) or type(exc).__name__
    return _error("database", ErrorCode.INTERNAL, f"database error {sqlstate}: {primary}")
