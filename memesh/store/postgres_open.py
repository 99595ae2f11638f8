"""Opening a PostgreSQL database as a MeMesh store, and showing its URL: apart from `postgres.py`, so the hooks'
lean store (`postgres_hooks.py`) opens one without importing every mixin of the whole store."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TypeVar

from memesh.store.errors import StoreError
from memesh.store.postgres_base import LOCK_TIMEOUT, PgConnection, transaction_settings

if TYPE_CHECKING:
    import psycopg

    from memesh.store.postgres_writes import PostgresWrites

CONNECT_TIMEOUT_S = 10  # unless the URL says otherwise: a host that does not answer is "cannot open", not a hang

S = TypeVar("S", bound="PostgresWrites")


def open_as(kind: type[S], url: str) -> S:
    """Connect to the database at `url`, migrate it and give it as a `kind` (the whole PostgresStore, or the hooks'
    lean one); StoreError (naming no host or password) when it will not."""
    from memesh.store.errors import translate_postgres

    try:
        import psycopg
    except ImportError as exc:
        message = "a PostgreSQL database URL needs the postgres extra: pip install 'memesh[postgres]'"
        raise StoreError(message, translate_postgres(exc)) from exc
    pooler = _pooler_mode(url)
    try:
        raw: psycopg.Connection[tuple[Any, ...]] = psycopg.connect(_with_defaults(url), autocommit=True)
    except psycopg.Error as exc:
        error = translate_postgres(exc)
        raise StoreError(f"cannot open the database at {redacted(url)}: {error.message}", error) from exc
    try:
        row = session_setup(raw, pooler)
        if row is None or row[1] is None:
            raise StoreError(
                f"cannot use the database at {redacted(url)}: its search_path names no schema that exists",
                translate_postgres(None, kind="cannot-open", detail="its search_path names no schema that exists"),
            )
        per_transaction = transaction_settings() if row[2] else None
        store = kind(PgConnection(raw, int(row[0]), redacted(url), per_transaction=per_transaction))
        store.migrate()
    except StoreError:
        raw.close()
        raise
    except psycopg.Error as exc:
        raw.close()
        error = translate_postgres(exc)
        raise StoreError(f"cannot use the database at {redacted(url)}: {error.message}", error) from exc
    return store


# One round trip at connect: this database's lock scope and schema, whether a pooler stands between (the process id
# the server gave in its greeting is not the backend's: PgBouncer answers the greeting itself, with a process id of
# its own), and, on a connection of its own, the session's settings. Behind a transaction-mode pooler
# nothing may be set for the session: the next transaction may run on another server connection, and the settings
# would stay on this one for another client (`transaction_settings` sets them per write transaction instead).
# jit off: the ranking's row estimates (a range of postings per phrase, unknown until it runs) pass jit_above_cost at
# 100k memories, and compiling it took 290-350 ms of a 5-term recall's 310-420. Generic plans for the statements
# psycopg prepares (those run 5 times in a session): left to choose, the server kept planning the ranking anew on
# every call (custom plans), ~1 ms of a 3 ms one-word recall at 100k; the ranking's statements are written so that
# one plan serves every term (ADR 0005).
_SESSION_SETUP = """
SELECT hashtext(COALESCE(current_schema(), '')), current_schema(), pooled,
    CASE WHEN NOT pooled THEN set_config('lock_timeout', %(lock_timeout)s, false) || set_config('jit', 'off', false)
        || set_config('plan_cache_mode', 'force_generic_plan', false) END
FROM (SELECT CASE %(mode)s WHEN 'transaction' THEN true WHEN 'session' THEN false
    ELSE pg_backend_pid() <> %(pid)s END AS pooled) AS chosen
"""


def session_setup(raw: psycopg.Connection[tuple[Any, ...]], pooler: str | None) -> tuple[Any, ...] | None:
    """Ready a new connection: (lock scope, schema, pooled, _), its session's settings set unless it is pooled, and
    no statement prepared on the server if it is (a prepared statement lives on one server connection, and a
    transaction-mode pooler hands the next execution to any). `pooler` is MEMESH_DATABASE_POOLER's mode; None
    detects one."""
    if pooler == "transaction":
        raw.prepare_threshold = None  # before the first statement: nothing of this session prepared, ever
    row = raw.execute(
        _SESSION_SETUP, {"lock_timeout": LOCK_TIMEOUT, "mode": pooler or "", "pid": raw.info.backend_pid}
    ).fetchone()
    if row is not None and row[2]:
        raw.prepare_threshold = None
    return row


def _pooler_mode(url: str) -> str | None:
    """MEMESH_DATABASE_POOLER's mode; StoreError (cannot-open) naming the variable when it is not one."""
    from memesh import paths
    from memesh.store.errors import translate_postgres

    try:
        return paths.database_pooler_mode()
    except paths.DatabaseSettingError as exc:
        error = translate_postgres(None, kind="cannot-open", detail=str(exc))
        raise StoreError(f"cannot open the database at {redacted(url)}: {exc}", error) from exc


def is_url(target: object) -> bool:
    """Whether `target` names a PostgreSQL database (a postgresql:// or postgres:// URL), not a file."""
    return isinstance(target, str) and target.startswith(("postgresql://", "postgres://"))


def redacted(url: str) -> str:
    """The URL with its password (in the authority or a `password=` parameter) replaced by `***`."""
    from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

    try:
        parts = urlsplit(url)
        netloc = parts.netloc
        if "@" in netloc:
            userinfo, _, hostinfo = netloc.rpartition("@")
            if ":" in userinfo:
                userinfo = userinfo.split(":", 1)[0] + ":***"
            netloc = f"{userinfo}@{hostinfo}"
        query = urlencode(
            [(name, "***" if name == "password" else value) for name, value in parse_qsl(parts.query)], safe="/*-"
        )
        return urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))
    except ValueError:
        return "postgresql://***"


def _with_defaults(url: str) -> str:
    """The URL with MeMesh's connection defaults where it sets none (a connect timeout, an application name)."""
    from psycopg.conninfo import conninfo_to_dict, make_conninfo

    given = conninfo_to_dict(url)
    defaults: dict[str, Any] = {"connect_timeout": CONNECT_TIMEOUT_S, "application_name": "memesh"}
    extra = {name: value for name, value in defaults.items() if name not in given}
    return make_conninfo(url, **extra) if extra else url
