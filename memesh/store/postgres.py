"""The PostgreSQL store: `open_postgres` and `PostgresStore`, the same queries and writes as `SqliteStore`.

One MeMesh database is one PostgreSQL schema (the URL's `options=-csearch_path=…`, else the role's default, usually
`public`): every memory, relation, tag, proposal, message, receipt and session registration is there, so several
machines and teammates share them. psycopg (the `memesh[postgres]` extra) is imported only when a URL selects this
store. The queries both engines share are the shared mixins'; this module adds what PostgreSQL does its own way:
self-checks, the storage report's page figures, the metadata read as JSON, the local-time buckets of user patterns.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import TYPE_CHECKING

from memesh.store.briefing import Briefing
from memesh.store.copying import Copying
from memesh.store.graph import Graph
from memesh.store.health import Health
from memesh.store.insights import Insights
from memesh.store.members import Members
from memesh.store.memory_files import MemoryFiles
from memesh.store.messages import Messages
from memesh.store.oauth import OAuthGrants
from memesh.store.postgres_base import PostgresBase
from memesh.store.postgres_listen import events_channel
from memesh.store.postgres_migrations import MIGRATIONS
from memesh.store.postgres_open import CONNECT_TIMEOUT_S, HOOK, SERVER, is_url, open_as, redacted
from memesh.store.postgres_search import PostgresSearch
from memesh.store.postgres_writes import PostgresWrites
from memesh.store.projects import Projects
from memesh.store.proposals import Proposals

if TYPE_CHECKING:
    from memesh.core.messages_model import NewMessage, StoredMessage

__all__ = ["CONNECT_TIMEOUT_S", "PostgresStore", "is_url", "open_postgres", "redacted"]


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

    def unwritable(self) -> list[str]:
        """The schema's tables and sequences this role may not write (all of them for a read-only member), asked of
        the catalog: doctor tells a role that can read but not write without writing anything. One privilege at a
        time, since has_table_privilege with several answers whether ANY is held."""
        rows = self.conn.execute(
            "SELECT c.relname FROM pg_class c "
            "WHERE c.relnamespace = (SELECT oid FROM pg_namespace WHERE nspname = current_schema()) AND ("
            "(c.relkind = 'r' AND NOT (has_table_privilege(c.oid, 'INSERT') AND has_table_privilege(c.oid, 'UPDATE') "
            "AND has_table_privilege(c.oid, 'DELETE'))) "
            "OR (c.relkind = 'S' AND NOT has_sequence_privilege(c.oid, 'USAGE'))) ORDER BY c.relname"
        ).fetchall()
        return [str(row[0]) for row in rows]


class PostgresMessages(PostgresBase, Messages):
    def insert_message(self, new: NewMessage) -> StoredMessage:
        """As on SQLite, and the database's listeners notified in the same transaction: delivered at its commit,
        and only if it commits (memesh.store.postgres_listen)."""
        stored = super().insert_message(new)
        self.conn.notify_at_commit(events_channel(self.conn.scope))
        return stored

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
    Members,
    OAuthGrants,
):
    """Every query and write MeMesh makes, on a PostgreSQL database several machines share."""


def open_postgres(url: str, *, hook: bool = False) -> PostgresStore:
    """Connect to the database at `url` and migrate it, within a hook's budget when `hook` (`postgres_open.HOOK`);
    StoreError (naming no host or password) when it will not."""
    return open_as(PostgresStore, url, HOOK if hook else SERVER)
