"""Opening a PostgreSQL database as a MeMesh store, and showing its URL: apart from `postgres.py`, so the hooks'
lean store (`postgres_hooks.py`) opens one without importing every mixin of the whole store."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TypeVar

from memesh.records import dataclass
from memesh.store.errors import StoreError
from memesh.store.postgres_base import LOCK_TIMEOUT, PgConnection, transaction_settings

if TYPE_CHECKING:
    from memesh.store.postgres_link import Link
    from memesh.store.postgres_writes import PostgresWrites

S = TypeVar("S", bound="PostgresWrites")


@dataclass(frozen=True)
class Budget:
    """How long a process lets the database take, where the URL (or the role's, the database's or the server's own
    settings) sets none: to connect, to wait for the write lock, to run one statement. An answer is awaited at most
    `statement` plus `postgres_link.ANSWER_MARGIN_S`; longer means the link is lost (`postgres_link.Link`)."""

    connect_s: int  # libpq's connect_timeout: per address tried (2 s is its least)
    lock: str  # lock_timeout: a writer's turn at the write lock (SQLite's busy timeout)
    statement: str  # statement_timeout: above `lock`, so a writer kept waiting fails as "locked", not "canceled"


# memesh serve, memesh-mcp and the CLI. Connect: 5 s, not libpq's unbounded default (nor the 10 s before, which
# with a cold start put a hook past its host's own 10 s); a server that does not answer a SYN is "unreachable"
# after 5 s, one that refuses at once. Lock: 30 s, SQLite's busy timeout, so a burst of writers waits its turn as on
# SQLite. Statement: 40 s, above the lock wait and far above any one statement MeMesh runs (a 100k-memory reindex
# writes in chunks; migrations lift it for their own transaction). So a call waits at most ~41 s for any one answer,
# however the network fails: TCP itself gives up within ~11 s (keepalives below) when packets are lost, and the
# answer bound covers a link that still acknowledges but forwards nothing (a stalled proxy).
SERVER = Budget(connect_s=5, lock=LOCK_TIMEOUT, statement="40s")
# The hooks' lean store: a hook is a process its host kills at its timeout (10 s for SessionStart, UserPromptSubmit,
# PreToolUse and the Stop gate in hooks.json). Connect 3 s + one answer within 6 + 1 s stays inside 10 s with the
# interpreter's start-up; a writer waits 5 s for its turn (hundreds of writes' worth), then the hook gives up on
# that write rather than being killed holding nothing.
HOOK = Budget(connect_s=3, lock="5s", statement="6s")
CONNECT_TIMEOUT_S = SERVER.connect_s  # unless the URL says otherwise: a host that does not answer is "cannot open"
# TCP keepalives and a user timeout (libpq's names; ignored on a unix socket): a peer that vanished while a call
# waits for its answer is noticed after 5 s of silence plus 3 probes 2 s apart, and data left unacknowledged for
# 10 s fails the connection, instead of the kernel's defaults (two hours of silence; ~15 min of retransmissions).
KEEPALIVES = {
    "keepalives": 1,
    "keepalives_idle": 5,
    "keepalives_interval": 2,
    "keepalives_count": 3,
    "tcp_user_timeout": 10_000,
}
# jit off for this session: the ranking's row estimates (a range of postings per phrase, unknown until it runs) pass
# jit_above_cost at 100k memories, and compiling it took 290-350 ms of a 5-term recall's 310-420. Generic plans for
# the statements psycopg prepares (those run 5 times in a session): left to choose, the server kept planning the
# ranking anew on every call (custom plans), ~1 ms of a 3 ms one-word recall at 100k; the ranking's statements are
# written so that one plan serves every term (ADR 0005). The two timeouts are the budget's unless the session has
# its own already (a URL's `options=-c statement_timeout=…`, ALTER ROLE … SET): 0 is "none set".
# Behind a transaction-mode pooler nothing is set for the session: the next transaction may run on another server
# connection, and the settings would stay on this one for another client (`transaction_settings` sets them per write
# transaction instead; the statement budget still bounds every answer on this side). A pooler is told by the
# process id in the server's greeting, which is not the backend's: PgBouncer answers the greeting itself.
_SESSION = """
SELECT hashtext(COALESCE(current_schema(), '')), current_schema(), pooled,
    CASE WHEN pooled THEN %(statement)s ELSE set_config('statement_timeout', CASE current_setting('statement_timeout')
        WHEN '0' THEN %(statement)s ELSE current_setting('statement_timeout') END, false) END,
    CASE WHEN NOT pooled THEN set_config('lock_timeout', CASE current_setting('lock_timeout') WHEN '0' THEN %(lock)s
        ELSE current_setting('lock_timeout') END, false) || set_config('jit', 'off', false)
        || set_config('plan_cache_mode', 'force_generic_plan', false) END
FROM (SELECT CASE %(mode)s WHEN 'transaction' THEN true WHEN 'session' THEN false
    ELSE pg_backend_pid() <> %(pid)s END AS pooled) AS chosen
"""


# The resident server's connections kept between its requests (`keep_connections`): by store kind, URL and budget,
# those connected and not in use. None in every other process, whose stores close their connections.
_KEPT: dict[tuple[type[Any], str, Budget], list[PgConnection]] | None = None


def keep_connections() -> None:
    """From now on a store's connection, once closed, stays connected for the next store of the same kind, URL and
    budget (the resident server: its PostgreSQL connections outlive each request; a connection that broke meanwhile
    is replaced on its next use, `PgConnection`'s reconnect)."""
    global _KEPT  # noqa: PLW0603 (one switch for the process, set once by the resident server)
    if _KEPT is None:
        _KEPT = {}


def close_kept() -> None:
    """Close every kept connection (the resident server, as it exits)."""
    kept = _KEPT or {}
    for idle in kept.values():
        while idle:
            idle.pop().release()


def open_as(kind: type[S], url: str, budget: Budget = SERVER) -> S:
    """Connect to the database at `url`, migrate it and give it as a `kind` (the whole PostgresStore, or the hooks'
    lean one), which reconnects by itself when its connection breaks; StoreError (naming no host or password) when
    it will not. In the resident server, a kept connection of the same kind, URL and budget is used again (it was
    migrated when it was opened)."""
    idle = None if _KEPT is None else _KEPT.setdefault((kind, url, budget), [])
    if idle:
        return kind(idle.pop())
    store = _opened(kind, url, budget)
    if idle is not None:
        store.conn.kept_in = idle
    return store


def _opened(kind: type[S], url: str, budget: Budget) -> S:
    from memesh.store.errors import translate_postgres

    try:
        import psycopg
    except ImportError as exc:
        message = "a PostgreSQL database URL needs the postgres extra: pip install 'memesh[postgres]'"
        raise StoreError(message, translate_postgres(exc)) from exc
    pooler = _pooler_mode(url)
    conninfo = _with_defaults(url, budget)
    try:
        raw, scope, pooled = _session(conninfo, budget, pooler, redacted(url))
    except psycopg.Error as exc:
        error = translate_postgres(exc)
        raise StoreError(f"cannot open the database at {redacted(url)}: {error.message}", error) from exc
    try:
        per_transaction = transaction_settings(budget.lock, budget.statement) if pooled else None
        store = kind(
            PgConnection(
                raw,
                scope,
                redacted(url),
                per_transaction=per_transaction,
                reconnect=lambda: _session(conninfo, budget, pooler)[0],
            )
        )
        store.migrate()
    except StoreError:
        raw.close()
        raise
    except psycopg.Error as exc:
        raw.close()
        error = translate_postgres(exc)
        raise StoreError(f"cannot use the database at {redacted(url)}: {error.message}", error) from exc
    return store


def _session(conninfo: str, budget: Budget, pooler: str | None, shown: str = "") -> tuple[Link, int, bool]:
    """A new connection set up as every MeMesh session is (the settings above, unless it is behind a transaction-mode
    pooler), its schema's write-lock scope, and whether it is pooled: the first of a store, and each one that
    replaces a broken one. `pooler` is MEMESH_DATABASE_POOLER's mode; None tells a pooler by itself."""
    from memesh.store.errors import translate_postgres
    from memesh.store.postgres_link import ANSWER_MARGIN_S, Link, seconds

    raw = Link.connect(conninfo, autocommit=True)
    try:
        if pooler == "transaction":
            raw.prepare_threshold = None  # before the first statement: nothing of this session prepared, ever
        raw.answer_within = seconds(budget.statement) or None  # the setting-up itself: within the budget's own
        if raw.answer_within is not None:
            raw.answer_within += ANSWER_MARGIN_S
        given = {"lock": budget.lock, "statement": budget.statement, "mode": pooler or "", "pid": raw.info.backend_pid}
        row = raw.execute(_SESSION, given).fetchone()
        if row is None or row[1] is None:
            raise StoreError(
                f"cannot use the database at {shown or 'the URL'}: its search_path names no schema that exists",
                translate_postgres(None, kind="cannot-open", detail="its search_path names no schema that exists"),
            )
        pooled = bool(row[2])
        if pooled:
            raw.prepare_threshold = None
        within = seconds(str(row[3]))
        raw.answer_within = None if within is None else within + ANSWER_MARGIN_S
    except BaseException:
        raw.close()
        raise
    return raw, int(row[0]), pooled


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


def _with_defaults(url: str, budget: Budget = SERVER) -> str:
    """The URL with MeMesh's connection defaults where it sets none (a connect timeout, TCP keepalives and user
    timeout, an application name)."""
    from psycopg.conninfo import conninfo_to_dict, make_conninfo

    given = conninfo_to_dict(url)
    defaults: dict[str, Any] = {"connect_timeout": budget.connect_s, **KEEPALIVES, "application_name": "memesh"}
    extra = {name: value for name, value in defaults.items() if name not in given}
    return make_conninfo(url, **extra) if extra else url
