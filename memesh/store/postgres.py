"""The PostgreSQL store: `open_postgres` and `PostgresStore`, the same queries and writes as `SqliteStore`.

One MeMesh database is one PostgreSQL schema (the URL's `options=-csearch_path=…`, else the role's default, usually
`public`): every memory, relation, tag, proposal, message, receipt and session registration is there, so several
machines and teammates share them. psycopg (the `memesh[postgres]` extra) is imported only when a URL selects this
store. The queries both engines share are the shared mixins'; this module adds what PostgreSQL does its own way:
self-checks, the storage report's page figures, the metadata read as JSON, the local-time buckets of user patterns.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from memesh.store.briefing import Briefing
from memesh.store.copying import Copying
from memesh.store.errors import StoreError
from memesh.store.graph import Graph
from memesh.store.health import Health
from memesh.store.insights import Insights
from memesh.store.memory_files import MemoryFiles
from memesh.store.messages import Messages
from memesh.store.postgres_base import LOCK_TIMEOUT, PgConnection, PostgresBase
from memesh.store.postgres_migrations import MIGRATIONS
from memesh.store.postgres_search import PostgresSearch
from memesh.store.postgres_writes import PostgresWrites
from memesh.store.projects import Projects
from memesh.store.proposals import Proposals

CONNECT_TIMEOUT_S = 10  # unless the URL says otherwise: a host that does not answer is "cannot open", not a hang


class PostgresHealth(PostgresBase, Health):
    migrations = MIGRATIONS

    def integrity(self) -> str:
        """ "ok" when the counts the triggers keep match the rows (PostgreSQL checks its own pages), else which not."""
        row = self.conn.execute(
            "SELECT memesh_counter('entities') = (SELECT count(*) FROM entities), "
            "memesh_counter('search_docs') = (SELECT count(*) FROM search_docs), "
            "memesh_counter('search_tokens') = (SELECT COALESCE(sum(tokens), 0) FROM search_docs)"
        ).fetchone()
        wrong = [name for name, fine in zip(("entities", "search_docs", "search_tokens"), row, strict=True) if not fine]
        return "ok" if not wrong else f"counters out of step with their rows: {', '.join(wrong)}"

    def index_matches(self) -> tuple[int, int]:
        row = self.conn.execute("SELECT (SELECT count(*) FROM entities), (SELECT count(*) FROM search_docs)").fetchone()
        return int(row[0]), int(row[1])


class PostgresMessages(PostgresBase, Messages):
    def _storage_pages(self) -> dict[str, int]:
        """The block size and the bytes of this schema's tables (PostgreSQL reuses free space itself: no reusable
        pages to report, and no write-ahead log of this database's own)."""
        row = self.conn.execute(
            "SELECT current_setting('block_size')::int, COALESCE((SELECT sum(pg_total_relation_size(c.oid)) "
            "FROM pg_class c WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind = 'r'), 0)"
        ).fetchone()
        return {
            "page_size": int(row[0]),
            "reusable_pages": 0,
            "reusable_bytes": 0,
            "main_bytes": int(row[1]),
            "wal_bytes": 0,
        }


class PostgresProjects(PostgresBase, Projects):
    def _project_metadata(self, project: str) -> list[tuple[int, str]]:
        rows = self.conn.execute(
            "SELECT id, metadata FROM entities WHERE json_typeof(metadata::json -> 'project') = 'string' "
            "AND metadata::json ->> 'project' = ?",
            (project,),
        )
        return [(int(entity_id), str(text)) for entity_id, text in rows.fetchall()]


class PostgresInsights(PostgresBase, Insights):
    def local_hour_weekday_counts(self) -> list[tuple[int, int, int]]:
        """(hour 0-23, weekday 0-6 with 0 = Sunday, memories) by created_at in this machine's local time.

        The database counts memories per UTC quarter hour (every time zone's offset is a whole number of quarter
        hours), and each quarter becomes local time here, as SQLite's `localtime` does it; rows whose created_at is
        not a `YYYY-MM-DD HH:MM` time are left out."""
        rows = self.conn.execute(
            "SELECT substr(created_at, 1, 13), CAST(substr(created_at, 15, 2) AS integer) / 15, count(*) "
            "FROM entities WHERE created_at ~ '^[0-9]{4}-[0-9]{2}-[0-9]{2}[ T][0-9]{2}:[0-9]{2}' GROUP BY 1, 2"
        )
        counts: dict[tuple[int, int], int] = {}
        for hour_text, quarter, count in rows:
            try:
                moment = datetime.strptime(hour_text.replace("T", " "), "%Y-%m-%d %H").replace(tzinfo=UTC)
            except ValueError:
                continue
            local = (moment.replace(minute=int(quarter) * 15)).astimezone()
            key = (local.hour, (local.weekday() + 1) % 7)
            counts[key] = counts.get(key, 0) + int(count)
        return [(hour, weekday, count) for (hour, weekday), count in counts.items()]

    def marked_ids(self, key: str) -> list[int]:
        rows = self.conn.execute(
            "SELECT id FROM entities WHERE (metadata::jsonb -> ?) = 'true'::jsonb ORDER BY id", (key,)
        )
        return [int(row[0]) for row in rows]


class PostgresStore(
    PostgresWrites,
    PostgresSearch,
    PostgresHealth,
    PostgresProjects,
    PostgresMessages,
    PostgresInsights,
    Graph,
    MemoryFiles,
    Briefing,
    Proposals,
    Copying,
):
    """Every query and write MeMesh makes, on a PostgreSQL database several machines share."""


def open_postgres(url: str) -> PostgresStore:
    """Connect to the database at `url` and migrate it; StoreError (naming no host or password) when it will not."""
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
        # jit off for this session: the ranking's row estimates (a range of postings per phrase, unknown until it
        # runs) pass jit_above_cost at 100k memories, and compiling it took 290-350 ms of a 5-term recall's 310-420.
        row = raw.execute(
            "SELECT hashtext(COALESCE(current_schema(), '')), current_schema(), set_config('lock_timeout', %s, false), "
            "set_config('jit', 'off', false)",
            (LOCK_TIMEOUT,),
        ).fetchone()
        if row is None or row[1] is None:
            raise StoreError(
                f"cannot use the database at {redacted(url)}: its search_path names no schema that exists",
                translate_postgres(None, kind="cannot-open", detail="its search_path names no schema that exists"),
            )
        store = PostgresStore(PgConnection(raw, int(row[0]), redacted(url)))
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
