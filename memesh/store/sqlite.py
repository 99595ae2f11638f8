"""The one module that talks to SQLite: connections, pragmas, migrations, the keyword index and every write.

Several processes (the MCP server, the CLI, the HTTP server, hooks) write the same file at once. Each write runs in
one `BEGIN IMMEDIATE` transaction, which takes the write lock up front (a deferred transaction that upgrades later
can fail with SQLITE_BUSY no matter how long it waits), and a generous busy timeout lets writers queue instead of
failing with "database is locked".
"""

from __future__ import annotations

import json
import os
import sqlite3
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from memesh import paths
from memesh.core.terms import segment
from memesh.model import ACTIVE, Entity, EntityWrite, Filters, Relation
from memesh.store.migrations import FTS_DROP, FTS_TABLES, MIGRATIONS

BUSY_TIMEOUT_MS = 30_000
MMAP_BYTES = 1 << 30  # the first GiB of the file; SQLite reads past it as before
_CHUNK = 500  # ids per IN (...) list, well under SQLite's variable limit


class StoreError(Exception):
    """The database could not be opened or used; the message says why, without internals."""


def open_store(path: Path | None = None) -> SqliteStore:
    """Open (creating if needed, owner-only) the database at `path`, default `paths.db_path()`, migrated."""
    target = path or paths.db_path()
    try:
        paths.ensure_private_dir(target.parent)
        if not target.exists():
            # Created by us with mode 0600 before SQLite opens it; SQLite gives -wal/-shm the same mode.
            os.close(os.open(target, os.O_CREAT | os.O_WRONLY, 0o600))
        conn = sqlite3.connect(target, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None, check_same_thread=False)
    except (OSError, sqlite3.Error) as exc:
        raise StoreError(f"cannot open the database at {target}: {exc}") from exc
    store = SqliteStore(conn)
    try:
        _while_busy(store.configure)
        _while_busy(store.migrate)
    except sqlite3.Error as exc:
        conn.close()
        raise StoreError(f"cannot use the database at {target}: {exc}") from exc
    return store


def _while_busy(step: Callable[[], None]) -> None:
    """Run an idempotent set-up step, retrying while another process holds a lock it needs.

    Switching a database into WAL (and the first read of a file another process is just creating) can answer
    SQLITE_BUSY at once, without waiting on the busy timeout, when several processes open one new file together.
    """
    deadline = time.monotonic() + BUSY_TIMEOUT_MS / 1000
    delay = 0.005
    while True:
        try:
            step()
            return
        except sqlite3.OperationalError as exc:
            busy = exc.sqlite_errorcode & 0xFF in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED)
            if not busy or time.monotonic() + delay > deadline:
                raise
        time.sleep(delay)
        delay = min(delay * 2, 0.1)


def _loads(text: str | None) -> dict[str, Any]:
    if not text:
        return {}
    try:
        value = json.loads(text)
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _chunks(items: Sequence[Any]) -> Iterator[Sequence[Any]]:
    for start in range(0, len(items), _CHUNK):
        yield items[start : start + _CHUNK]


def _marks(items: Sequence[Any]) -> str:
    return ",".join("?" * len(items))


class SqliteStore:
    """Every query and write MeMesh makes; operations reach it only through their narrow protocols."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn
        self._depth = 0

    # -- lifecycle ---------------------------------------------------------------------------------------------

    def configure(self) -> None:
        # Writers queue on the lock rather than failing fast: two processes writing at once is the normal case.
        self.conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        # WAL lets readers (recall) run while another process writes, and makes commits cheap.
        self.conn.execute("PRAGMA journal_mode = WAL")
        # With WAL, NORMAL is still crash-safe (a power cut may drop the last commits, never corrupt).
        self.conn.execute("PRAGMA synchronous = NORMAL")
        # Observations, tags and relations die with their entity (ON DELETE CASCADE) only when this is on.
        self.conn.execute("PRAGMA foreign_keys = ON")
        # Read the file through a memory map: a search walks hundreds of pages of the keyword index, and copying
        # each one in with a read() call cost about 1 ms of system time per recall at 100k memories. The mapped
        # pages are the OS page cache itself, not a private copy per process; writes still go through the WAL.
        self.conn.execute(f"PRAGMA mmap_size = {MMAP_BYTES}")

    def migrate(self) -> None:
        with self.transaction():
            self.conn.execute(
                "CREATE TABLE IF NOT EXISTS schema_migrations "
                "(version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)"
            )
            done = {row[0] for row in self.conn.execute("SELECT version FROM schema_migrations")}
            for version, name, sql in MIGRATIONS:
                if version in done:
                    continue
                for statement in _statements(sql):
                    self.conn.execute(statement)
                self.conn.execute(
                    "INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)",
                    (version, name, datetime.now(UTC).isoformat()),
                )

    def close(self) -> None:
        self.conn.close()

    @contextmanager
    def transaction(self) -> Iterator[None]:
        """One atomic unit: BEGIN IMMEDIATE at the outermost level, a savepoint when nested."""
        if self._depth:
            savepoint = f"sp_{self._depth}"
            self.conn.execute(f"SAVEPOINT {savepoint}")
            self._depth += 1
            try:
                yield
            except BaseException:
                self.conn.execute(f"ROLLBACK TO {savepoint}")
                self.conn.execute(f"RELEASE {savepoint}")
                raise
            finally:
                self._depth -= 1
            self.conn.execute(f"RELEASE {savepoint}")
            return
        self.conn.execute("BEGIN IMMEDIATE")
        self._depth = 1
        try:
            yield
        except BaseException:
            self._depth = 0
            self.conn.execute("ROLLBACK")
            raise
        self._depth = 0
        self.conn.execute("COMMIT")

    # -- reads -------------------------------------------------------------------------------------------------

    def entity_id(self, name: str) -> int | None:
        row = self.conn.execute("SELECT id FROM entities WHERE name = ?", (name,)).fetchone()
        return int(row[0]) if row else None

    def find(self, name: str) -> Entity | None:
        """The memory called `name`, archived or not, with its observations, tags and outgoing relations."""
        entity_id = self.entity_id(name)
        return self.load([entity_id])[0] if entity_id is not None else None

    def existing_names(self, names: Iterable[str]) -> set[str]:
        wanted = sorted(set(names))
        found: set[str] = set()
        for chunk in _chunks(wanted):
            rows = self.conn.execute(f"SELECT name FROM entities WHERE name IN ({_marks(chunk)})", chunk)
            found.update(row[0] for row in rows)
        return found

    def load(self, ids: Sequence[int]) -> list[Entity]:
        """The memories with these ids, in the order given (ids that do not exist are skipped)."""
        by_id: dict[int, Entity] = {}
        for chunk in _chunks(list(ids)):
            marks = _marks(chunk)
            for row in self.conn.execute(
                "SELECT id, name, type, title, namespace, status, created_at, metadata, access_count, "
                f"last_accessed_at, confidence, recall_hits, recall_misses FROM entities WHERE id IN ({marks})",
                chunk,
            ):
                by_id[row[0]] = Entity(
                    id=row[0],
                    name=row[1],
                    type=row[2],
                    title=row[3],
                    namespace=row[4],
                    status=row[5],
                    created_at=row[6],
                    metadata=_loads(row[7]),
                    access_count=row[8],
                    last_accessed_at=row[9],
                    confidence=row[10],
                    recall_hits=row[11],
                    recall_misses=row[12],
                )
            for entity_id, content in self.conn.execute(
                f"SELECT entity_id, content FROM observations WHERE entity_id IN ({marks}) ORDER BY entity_id, id",
                chunk,
            ):
                by_id[entity_id].observations.append(content)
            for entity_id, tag in self.conn.execute(
                f"SELECT entity_id, tag FROM tags WHERE entity_id IN ({marks}) ORDER BY entity_id, id", chunk
            ):
                by_id[entity_id].tags.append(tag)
            for entity_id, source, target, kind in self.conn.execute(
                "SELECT r.from_entity_id, f.name, t.name, r.relation_type FROM relations r "
                "JOIN entities f ON f.id = r.from_entity_id JOIN entities t ON t.id = r.to_entity_id "
                f"WHERE r.from_entity_id IN ({marks}) ORDER BY r.from_entity_id, r.id",
                chunk,
            ):
                by_id[entity_id].relations.append(Relation(source, target, kind))
        return [by_id[entity_id] for entity_id in ids if entity_id in by_id]

    def count(self) -> int:
        """How many memories are stored, archived included."""
        row = self.conn.execute("SELECT value FROM counters WHERE name = 'entities'").fetchone()
        return int(row[0]) if row else 0

    def doc_freq(self, terms: Sequence[str]) -> dict[str, int]:
        """For each term, in how many indexed memories it occurs."""
        freq: dict[str, int] = {}
        for term in terms:
            row = self.conn.execute("SELECT doc FROM entities_fts_vocab WHERE term = ?", (term,)).fetchone()
            if row:
                freq[term] = int(row[0])
        return freq

    def search(self, expressions: Sequence[str], filters: Filters, limit: int) -> list[int]:
        """Ids matching the first expression that has any hit, best BM25 first, ties newest first."""
        for expression in expressions:
            ids = self._best_matches(expression, filters, limit)
            if ids:
                return ids
        return []

    def _best_matches(self, expression: str, filters: Filters, limit: int) -> list[int]:
        # Ranking every match joined to its entity row costs one table lookup per match, most of a search's time on
        # a large database. Ranking the index alone and checking the filters on a window of the best gives the same
        # ids whenever that window holds `limit` that pass (the order is the same), or holds every match; otherwise
        # the joined query runs. A tag filter usually passes few of the best matches, so it goes straight there.
        if filters.tag is None:
            window = limit * _SEARCH_WINDOW
            best = [row[0] for row in self.conn.execute(_RANKED_MATCHES, (expression, window))]
            passing = self._passing(best, filters)
            kept = [entity_id for entity_id in best if entity_id in passing]
            if len(kept) >= limit or len(best) < window:
                return kept[:limit]
        where, params = _filter_sql(filters)
        sql = (
            "SELECT e.id FROM entities_fts f JOIN entities e ON e.id = f.rowid "
            f"WHERE entities_fts MATCH ? {where} ORDER BY {_BM25}, e.id DESC LIMIT ?"
        )
        return [row[0] for row in self.conn.execute(sql, (expression, *params, limit))]

    def _passing(self, ids: Sequence[int], filters: Filters) -> set[int]:
        """Which of these ids are stored memories that pass the filters."""
        where, params = _filter_sql(filters)
        passing: set[int] = set()
        for chunk in _chunks(list(ids)):
            sql = f"SELECT e.id FROM entities e WHERE e.id IN ({_marks(chunk)}) {where}"
            passing.update(row[0] for row in self.conn.execute(sql, (*chunk, *params)))
        return passing

    def recent(self, filters: Filters, limit: int) -> list[int]:
        """The newest memories (by id) that pass the filters."""
        if filters.tag is not None:
            # Walk the tag's own index newest first (a rare tag would otherwise scan every memory for it).
            where, params = _filter_sql(Filters(namespace=filters.namespace, include_archived=filters.include_archived))
            sql = (
                "SELECT e.id FROM tags t CROSS JOIN entities e ON e.id = t.entity_id "
                f"WHERE t.tag = ? {where} ORDER BY t.entity_id DESC LIMIT ?"
            )
            return [row[0] for row in self.conn.execute(sql, (filters.tag, *params, limit))]
        where, params = _filter_sql(filters)
        sql = f"SELECT e.id FROM entities e WHERE 1 = 1 {where} ORDER BY e.id DESC LIMIT ?"
        return [row[0] for row in self.conn.execute(sql, (*params, limit))]

    def list_ids(self, entity_type: str | None, limit: int, *, include_archived: bool = True) -> list[int]:
        """Newest first, optionally one type; for listings that are not searches (no access is counted)."""
        clauses, params = [], []
        if entity_type is not None:
            clauses.append("type = ?")
            params.append(entity_type)
        if not include_archived:
            clauses.append("status = 'active'")
        where = f"WHERE {' AND '.join(clauses)}" if clauses else ""
        return [
            row[0]
            for row in self.conn.execute(f"SELECT id FROM entities {where} ORDER BY id DESC LIMIT ?", (*params, limit))
        ]

    def ids_with_tag(self, tag: str) -> list[int]:
        """Every memory carrying exactly this tag, archived included, oldest first."""
        return [
            row[0] for row in self.conn.execute("SELECT entity_id FROM tags WHERE tag = ? ORDER BY entity_id", (tag,))
        ]

    def get_meta(self, key: str) -> str | None:
        """A value MeMesh keeps about itself in the database (not about any one memory)."""
        row = self.conn.execute("SELECT value FROM memesh_metadata WHERE key = ?", (key,)).fetchone()
        return str(row[0]) if row else None

    def set_meta(self, key: str, value: str | None) -> None:
        """Store (or, with None, remove) one of MeMesh's own values."""
        if value is None:
            self.conn.execute("DELETE FROM memesh_metadata WHERE key = ?", (key,))
        else:
            self.conn.execute(
                "INSERT INTO memesh_metadata (key, value) VALUES (?, ?) "
                "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                (key, value),
            )

    def conflicts(self, names: Sequence[str]) -> list[str]:
        """`"a" contradicts "b"` for every contradicts relation between two of these memories."""
        if len(names) < 2:
            return []
        marks = _marks(names)
        rows = self.conn.execute(
            "SELECT f.name, t.name FROM relations r JOIN entities f ON f.id = r.from_entity_id "
            "JOIN entities t ON t.id = r.to_entity_id WHERE r.relation_type = 'contradicts' "
            f"AND f.name IN ({marks}) AND t.name IN ({marks}) ORDER BY r.id",
            (*names, *names),
        )
        return [f'"{source}" contradicts "{target}"' for source, target in rows]

    def title_of(self, entity_id: int) -> str | None:
        row = self.conn.execute("SELECT title FROM entities WHERE id = ?", (entity_id,)).fetchone()
        return row[0] if row else None

    # -- writes (callers hold a transaction) ---------------------------------------------------------------------

    def save(self, write: EntityWrite) -> int:
        """Make the stored memory match `write`; returns its id. The keyword index is rewritten with it."""
        metadata = _dumps(write.metadata)
        if write.entity_id is None:
            cursor = self.conn.execute(
                "INSERT INTO entities (name, type, title, namespace, status, metadata, created_at) "
                "VALUES (?, ?, ?, ?, ?, ?, COALESCE(?, datetime('now')))",
                (write.name, write.type, write.title, write.namespace, write.status, metadata, write.created_at),
            )
            entity_id = int(cursor.lastrowid or 0)
            stored_obs: list[str] = []
            stored_tags: list[str] = []
        else:
            entity_id = write.entity_id
            self.conn.execute(
                "UPDATE entities SET type = ?, title = ?, namespace = ?, status = ?, metadata = ?, "
                "confidence = COALESCE(?, confidence) WHERE id = ?",
                (write.type, write.title, write.namespace, write.status, metadata, write.confidence, entity_id),
            )
            stored_obs = [
                row[0]
                for row in self.conn.execute(
                    "SELECT content FROM observations WHERE entity_id = ? ORDER BY id", (entity_id,)
                )
            ]
            stored_tags = [
                row[0]
                for row in self.conn.execute("SELECT tag FROM tags WHERE entity_id = ? ORDER BY id", (entity_id,))
            ]
        self._sync_observations(entity_id, stored_obs, list(write.observations))
        self._sync_tags(entity_id, stored_tags, list(write.tags))
        self._index(entity_id, write.name, write.title, write.observations)
        return entity_id

    def _sync_observations(self, entity_id: int, stored: list[str], wanted: list[str]) -> None:
        if stored == wanted[: len(stored)]:
            new = wanted[len(stored) :]
        else:
            self.conn.execute("DELETE FROM observations WHERE entity_id = ?", (entity_id,))
            new = wanted
        self.conn.executemany(
            "INSERT INTO observations (entity_id, content) VALUES (?, ?)", [(entity_id, text) for text in new]
        )

    def _sync_tags(self, entity_id: int, stored: list[str], wanted: list[str]) -> None:
        keep = set(wanted)
        gone = [tag for tag in stored if tag not in keep]
        if gone:
            self.conn.executemany("DELETE FROM tags WHERE entity_id = ? AND tag = ?", [(entity_id, t) for t in gone])
        have = set(stored)
        self.conn.executemany(
            "INSERT OR IGNORE INTO tags (entity_id, tag) VALUES (?, ?)",
            [(entity_id, tag) for tag in dict.fromkeys(wanted) if tag not in have],
        )

    def _index(self, entity_id: int, name: str, title: str | None, observations: Sequence[str]) -> None:
        self.conn.execute("DELETE FROM entities_fts WHERE rowid = ?", (entity_id,))
        self.conn.execute(
            "INSERT INTO entities_fts (rowid, name, title, observations) VALUES (?, ?, ?, ?)",
            (entity_id, segment(name), segment(title or ""), segment("\n".join(observations))),
        )

    def relate(self, from_name: str, to_name: str, relation_type: str) -> bool:
        """Create the relation (idempotent); False when either end does not exist."""
        cursor = self.conn.execute(
            "INSERT OR IGNORE INTO relations (from_entity_id, to_entity_id, relation_type) "
            "SELECT f.id, t.id, ? FROM entities f, entities t WHERE f.name = ? AND t.name = ?",
            (relation_type, from_name, to_name),
        )
        return cursor.rowcount > 0 or self._relation_exists(from_name, to_name, relation_type)

    def _relation_exists(self, from_name: str, to_name: str, relation_type: str) -> bool:
        row = self.conn.execute(
            "SELECT 1 FROM relations r JOIN entities f ON f.id = r.from_entity_id "
            "JOIN entities t ON t.id = r.to_entity_id WHERE f.name = ? AND t.name = ? AND r.relation_type = ?",
            (from_name, to_name, relation_type),
        ).fetchone()
        return row is not None

    def set_status(self, name: str, status: str) -> bool:
        """Archive or reactivate a memory; False when there is none by that name."""
        cursor = self.conn.execute("UPDATE entities SET status = ? WHERE name = ?", (status, name))
        return cursor.rowcount > 0

    def update_metadata(self, entity_id: int, metadata: dict[str, Any]) -> None:
        self.conn.execute("UPDATE entities SET metadata = ? WHERE id = ?", (_dumps(metadata), entity_id))

    def remove_observation(self, entity_id: int, text: str) -> bool:
        """Delete the earliest observation with exactly this text and reindex; False when none matched."""
        row = self.conn.execute(
            "SELECT id FROM observations WHERE entity_id = ? AND content = ? ORDER BY id LIMIT 1", (entity_id, text)
        ).fetchone()
        if row is None:
            return False
        self.conn.execute("DELETE FROM observations WHERE id = ?", (row[0],))
        entity = self.load([entity_id])[0]
        self._index(entity_id, entity.name, entity.title, entity.observations)
        return True

    def rebuild_index(self, progress: Callable[[int, int], None] | None = None) -> int:
        """Rebuild the keyword index from the stored rows, in one transaction; returns how many memories it holds.

        Memories are untouched: only the index is dropped and written again, so a corrupted or emptied index
        comes back exactly as the rows say it should be.
        """
        with self.transaction():
            ids = [row[0] for row in self.conn.execute("SELECT id FROM entities ORDER BY id")]
            for statement in (*FTS_DROP, *FTS_TABLES):
                self.conn.execute(statement)
            for done, chunk in enumerate(_chunks(ids), start=1):
                for entity in self.load(chunk):
                    self._index(entity.id, entity.name, entity.title, entity.observations)
                if progress is not None:
                    progress(min(done * _CHUNK, len(ids)), len(ids))
        return len(ids)

    def touch(self, ids: Sequence[int], when: str) -> None:
        """Count one access for each memory a recall returned (access tracking feeds the ranking)."""
        if not ids:
            return
        with self.transaction():
            for chunk in _chunks(list(ids)):
                self.conn.execute(
                    "UPDATE entities SET access_count = access_count + 1, last_accessed_at = ? "
                    f"WHERE id IN ({_marks(chunk)})",
                    (when, *chunk),
                )


# BM25 column weights: a term in the name or title says more about what a memory is than one in its body.
NAME_WEIGHT = 2.0
TITLE_WEIGHT = 2.0
OBSERVATION_WEIGHT = 1.0
_BM25 = f"bm25(entities_fts, {NAME_WEIGHT}, {TITLE_WEIGHT}, {OBSERVATION_WEIGHT})"
# The best matches by the index alone, in exactly the joined query's order (e.id is the index's rowid).
_RANKED_MATCHES = f"SELECT rowid FROM entities_fts WHERE entities_fts MATCH ? ORDER BY {_BM25}, rowid DESC LIMIT ?"
# How many times `limit` best matches a search ranks before checking the filters: room for archived memories.
_SEARCH_WINDOW = 3


def _filter_sql(filters: Filters) -> tuple[str, list[Any]]:
    clauses: list[str] = []
    params: list[Any] = []
    if not filters.include_archived:
        clauses.append(f"AND e.status = '{ACTIVE}'")
    if filters.namespace is not None:
        clauses.append("AND e.namespace = ?")
        params.append(filters.namespace)
    if filters.tag is not None:
        clauses.append("AND EXISTS (SELECT 1 FROM tags t WHERE t.entity_id = e.id AND t.tag = ?)")
        params.append(filters.tag)
    return " ".join(clauses), params


def _statements(script: str) -> list[str]:
    """Split a migration script into statements (triggers keep their inner semicolons)."""
    statements: list[str] = []
    buffer = ""
    for line in script.splitlines(keepends=True):
        if line.strip().startswith("--"):
            continue
        buffer += line
        if sqlite3.complete_statement(buffer):
            statements.append(buffer.strip())
            buffer = ""
    if buffer.strip():
        statements.append(buffer.strip())
    return statements
