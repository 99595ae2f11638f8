"""The one translation of database failures into the spec's codes, with a message a person can act on.

Neither engine's exceptions leave this package as they are: `translate` maps each kind (locked, damaged, not a
database, read-only, disk full, cannot open) to a MemeshError, SQLite's by its result code and PostgreSQL's by its
SQLSTATE, and every transport reaches it through `memesh.app.dispatch.guarded`. Messages never name a path, a host
or a password: they may leave the machine (an MCP result, an HTTP body).
"""

from __future__ import annotations

import errno
import os
import sqlite3
import sys

from memesh.errors import ErrorCode, MemeshError, out_of_descriptors

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
    if out_of_descriptors(exc):
        return MemeshError.no_descriptors()
    psycopg = sys.modules.get("psycopg")  # a psycopg error can only be raised once psycopg is imported
    if psycopg is not None and isinstance(exc, psycopg.Error):
        return translate_postgres(exc)
    if isinstance(exc, sqlite3.Error):
        primary = getattr(exc, "sqlite_errorcode", 0) & 0xFF
        if primary == sqlite3.SQLITE_CANTOPEN and not descriptor_free():
            return MemeshError.no_descriptors()  # SQLite says only "unable to open": the process's limit is why
        if primary in _BY_PRIMARY:
            return _error(*_BY_PRIMARY[primary])
        if primary == sqlite3.SQLITE_IOERR:
            return _error("io", ErrorCode.INTERNAL, f"the database could not be read or written ({exc})")
        return _error("database", ErrorCode.INTERNAL, f"database error: {exc}")
    if isinstance(exc, OSError) and exc.errno == errno.ENOSPC:
        return _error("disk-full", ErrorCode.INTERNAL, "disk full: free some space, then try again")
    return None


def descriptor_free() -> bool:
    """Whether this process can open one more file now (False: EMFILE or ENFILE)."""
    try:
        fd = os.open(os.devnull, os.O_RDONLY)
    except OSError as exc:
        return not out_of_descriptors(exc)
    os.close(fd)
    return True


def schema_behind(pending: list[int]) -> StoreError:
    """The refusal for a role that may not migrate a schema this MeMesh needs migrated: it names the fix. Nothing
    works on a schema behind the code (a missing table or column fails every call), so it is unavailable, not a
    refusal of one call (store.unavailable, 503), until the owner migrates."""
    needs = f"migration {pending[0]}" if len(pending) == 1 else f"migrations {pending[0]}-{pending[-1]}"
    message = (
        f"the database's schema is behind this MeMesh (it needs {needs}) and this database role may not change it: "
        "its owner runs `memesh db migrate` (the same MeMesh version), then this works as it is"
    )
    return StoreError(message, MemeshError(ErrorCode.STORE_UNAVAILABLE, message, {"store": "schema-behind"}))


def not_granted() -> StoreError:
    """The refusal for a role that may not even read MeMesh's tables: the owner has not granted it anything yet."""
    message = (
        "this database role may not read MeMesh's tables: the database's owner grants it SELECT (and INSERT, UPDATE, "
        "DELETE to write) on them (README: roles and privileges)"
    )
    return StoreError(message, MemeshError(ErrorCode.STORE_UNAVAILABLE, message, {"store": "not-granted"}))


def why(exc: BaseException) -> str:
    """What went wrong, without a path: the translated message, an OSError's strerror, or the type's name."""
    error = translate(exc)
    if error is not None:
        return error.message
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror
    return type(exc).__name__


_UNREACHABLE = (
    "the database server cannot be reached (check that it runs, and the address and port in the URL: "
    "MEMESH_DATABASE_URL, or `database` in config.json); the next call connects again"
)
_RESTARTING = "the database server is restarting or shutting down; the next call connects again"
_BUSY = "the database server has no free connection now; the next call connects again"
_AUTH_FAILED = (
    "the database refused the credentials (check the password: ~/.pgpass, PGPASSWORD or the URL); "
    "the next call connects again"
)
_NOT_ALLOWED = "the database server does not accept this role from this host (its pg_hba.conf); ask its owner"
_TLS_REFUSED = (
    "the database server's TLS certificate was not accepted (check sslrootcert: the root certificate that signed "
    "the server's, and that the URL's host is the certificate's name)"
)
_TLS_REQUIRED = "the database server accepts only TLS connections: set sslmode=verify-full (or require) in the URL"
_NO_DATABASE = "the database the URL names does not exist; check the URL, or ask its owner to create it"
_TIMEOUT = "the database did not answer within the call's time budget; try again"
_NO_ANSWER = (
    "the database server stopped answering within the call's time budget (the network, or the server); the next call "
    "connects again"
)


def _unavailable(kind: str, message: str) -> tuple[str, ErrorCode, str]:
    return (kind, ErrorCode.STORE_UNAVAILABLE, message)


# By SQLSTATE, then by its class (the first two characters). A connection that cannot serve (broken, refused,
# restarting, full) is store.unavailable with a reason in data["store"]; a statement's failure keeps the spec's codes,
# the same as SQLite's (locked, read-only, disk full, damaged: server.internal or operation.failed).
_BY_SQLSTATE: dict[str, tuple[str, ErrorCode, str]] = {
    "55P03": (
        "locked",
        ErrorCode.INTERNAL,
        "the database is locked by another writer (its turn did not come within the lock budget); try again",
    ),
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
        "the database role may not do this here (a read-only member: recall and reads work); ask the database's owner",
    ),
    "3D000": _unavailable("no-database", _NO_DATABASE),
    "28P01": _unavailable("auth-failed", _AUTH_FAILED),
    "28000": _unavailable("auth-failed", _NOT_ALLOWED),
    "53300": _unavailable("server-busy", _BUSY),
    "57P01": _unavailable("server-restarting", _RESTARTING),
    "57P02": _unavailable("server-restarting", _RESTARTING),
    "57P03": _unavailable("server-restarting", _RESTARTING),
    "57014": _unavailable("timeout", _TIMEOUT),
    "XX001": ("corrupt", ErrorCode.INTERNAL, "the database server reports damaged data; restore it from a backup"),
    "XX002": ("corrupt", ErrorCode.INTERNAL, "the database server reports a damaged index; reindex it (REINDEX)"),
}
_BY_CLASS: dict[str, tuple[str, ErrorCode, str]] = {
    "08": _unavailable("unreachable", _UNREACHABLE),
    "28": _unavailable("auth-failed", _AUTH_FAILED),
    "53": _unavailable("server-busy", "the database server is out of resources now; try again"),
    "57": _unavailable("server-restarting", _RESTARTING),
}

# What libpq reports when a connection cannot be made or breaks. A failed connect carries no SQLSTATE (libpq gives
# only its message, the server's FATAL line inside it), so here alone a failure is told by its text: libpq's and the
# server's own English wording (PostgreSQL 15's), matched on fragments that name no host. Anything not matched is
# "unreachable", which is what it was before. A server whose lc_messages is not English answers in its language:
# its refusals then read as unreachable too, which is still a connection failure (store.unavailable).
_CONNECT_TEXTS: tuple[tuple[tuple[str, ...], str, str], ...] = (
    (("no encryption",), "tls-required", _TLS_REQUIRED),  # pg_hba: hostssl lines only, and the client asked none
    # Before `role "` below: a role past its CONNECTION LIMIT reads `too many connections for role "x"`.
    (("too many clients", "too many connections", "connection slots are reserved"), "server-busy", _BUSY),
    (("password authentication failed", "no password supplied", "authentication failed", "scram"), "auth-failed",
     _AUTH_FAILED),
    (("no pg_hba.conf entry", "pg_hba.conf rejects"), "auth-failed", _NOT_ALLOWED),
    (("root certificate", "certificate verify failed", "server certificate for", "ssl error", "sslrootcert",
      "does not support ssl", "certificate"), "tls-refused", _TLS_REFUSED),
    (('role "',), "auth-failed", _AUTH_FAILED),  # `FATAL: role "x" does not exist` (28000)
    (('database "',), "no-database", _NO_DATABASE),  # `FATAL: database "x" does not exist` (3D000)
    (("starting up", "shutting down", "in recovery mode", "not yet accepting connections", "administrator command"),
     "server-restarting", _RESTARTING),
)  # fmt: skip


def _connect_failure(exc: BaseException) -> tuple[str, ErrorCode, str]:
    """The reason a connection could not be made or broke, from libpq's text (see _CONNECT_TEXTS)."""
    if getattr(exc, "store_reason", None) == "timeout":  # postgres_link's AnswerTimeout: the link went silent
        return _unavailable("timeout", _NO_ANSWER)
    pgconn = getattr(exc, "pgconn", None)
    if pgconn is not None and getattr(pgconn, "needs_password", False):  # libpq's own flag: a password was asked
        return _unavailable("auth-failed", _AUTH_FAILED)
    text = str(exc).lower()
    for fragments, kind, message in _CONNECT_TEXTS:
        if any(fragment in text for fragment in fragments):
            return _unavailable(kind, message)
    if not descriptor_free():  # libpq says only that it could not connect: the process's limit is why (as SQLite)
        error = MemeshError.no_descriptors()
        return "descriptors", error.code, error.message
    return _unavailable("unreachable", _UNREACHABLE)


def translate_postgres(exc: BaseException | None, *, kind: str | None = None, detail: str = "") -> MemeshError:
    """The spec's error for a PostgreSQL failure (a psycopg error, psycopg missing, or a `kind` with its `detail`),
    with a message that names no host, user or password: libpq's own texts name the server, so they are never passed
    on, only the server's primary message for failures of a statement."""
    if kind is not None:
        return _error(kind, ErrorCode.STORE_UNAVAILABLE, f"cannot use the database: {detail}")
    if isinstance(exc, ImportError):
        message = "a PostgreSQL database URL needs the postgres extra: pip install 'memesh[postgres]'"
        return _error("cannot-open", ErrorCode.INTERNAL, message)
    sqlstate = str(getattr(exc, "sqlstate", None) or "")
    if sqlstate in _BY_SQLSTATE:
        return _error(*_BY_SQLSTATE[sqlstate])
    if sqlstate[:2] in _BY_CLASS:
        return _error(*_BY_CLASS[sqlstate[:2]])
    psycopg = sys.modules.get("psycopg")
    if not sqlstate and psycopg is not None and isinstance(exc, psycopg.OperationalError):
        # Raised by the client with no answer from a server: the connect failed, or the connection broke.
        return _error(*_connect_failure(exc))
    if not sqlstate:
        # Raised by the client about what this call sent (a NUL byte in a text, a value it cannot adapt): a bug or a
        # value to refuse earlier, never "cannot be reached". Its text may quote the value, so only its type is shown.
        return _error("database", ErrorCode.INTERNAL, f"the database client refused a value ({type(exc).__name__})")
    diag = getattr(exc, "diag", None)
    primary = getattr(diag, "message_primary", None) or type(exc).__name__
    return _error("database", ErrorCode.INTERNAL, f"database error {sqlstate}: {primary}")
