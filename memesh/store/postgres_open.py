"""Opening a PostgreSQL database as a MeMesh store, and showing its URL: apart from `postgres.py`, so the hooks'
lean store (`postgres_hooks.py`) opens one without importing every mixin of the whole store."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TypeVar

from memesh.store.errors import StoreError
from memesh.store.postgres_base import LOCK_TIMEOUT, PgConnection

if TYPE_CHECKING:
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
    try:
        raw: psycopg.Connection[tuple[Any, ...]] = psycopg.connect(_with_defaults(url), autocommit=True)
    except psycopg.Error as exc:
        error = translate_postgres(exc)
        raise StoreError(f"cannot open the database at {redacted(url)}: {error.message}", error) from exc
    try:
        row = raw.execute(
            # jit off for this session: the ranking's row estimates (a range of postings per phrase, unknown until it
            # runs) pass jit_above_cost at 100k memories, and compiling it took 290-350 ms of a 5-term recall's 310-420.
            # Generic plans for the statements psycopg prepares (those run 5 times in a session): left to choose, the
            # server kept planning the ranking anew on every call (custom plans), ~1 ms of a 3 ms one-word recall at
            # 100k; the ranking's statements are written so that one plan serves every term (ADR 0005).
            "SELECT hashtext(COALESCE(current_schema(), '')), current_schema(), set_config('lock_timeout', %s, false), "
            "set_config('jit', 'off', false), set_config('plan_cache_mode', 'force_generic_plan', false)",
            (LOCK_TIMEOUT,),
        ).fetchone()
        if row is None or row[1] is None:
            raise StoreError(
                f"cannot use the database at {redacted(url)}: its search_path names no schema that exists",
                translate_postgres(None, kind="cannot-open", detail="its search_path names no schema that exists"),
            )
        store = kind(PgConnection(raw, int(row[0]), redacted(url)))
        store.migrate()
    except StoreError:
        raw.close()
        raise
    except psycopg.Error as exc:
        raw.close()
        error = translate_postgres(exc)
        raise StoreError(f"cannot use the database at {redacted(url)}: {error.message}", error) from exc
    return store


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
