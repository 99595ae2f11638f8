"""Adopting a database the TypeScript MeMesh wrote (docs/adr/0010-adopting-typescript-databases.md).

Both programs keep `~/.memesh/knowledge-graph.db` with the same four tables, so the first process of ours that opens
one brings it to this project's schema in place: in one `BEGIN IMMEDIATE` transaction it makes a consistent backup
beside the file, adds what the original lacks, replaces the original's keyword index with ours, records the
migrations the original's tables stand for, runs the rest, and rebuilds the index. Everything else the original
keeps (valid_from/valid_until, its vector tables, hook_runs, llm_telemetry, its extra proposal columns) is left as it
is. The second process to open the file waits on the lock and then finds our schema there: a file is adopted once.
"""

from __future__ import annotations

import json
import os
import sqlite3
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Final, Literal

from memesh import paths
from memesh.store.migrations import MIGRATIONS
from memesh.store.sqlite_base import BUSY_TIMEOUT_MS
from memesh.store.sqlite_writes import SqliteWrites

Shape = Literal["empty", "ours", "original", "foreign"]

# What recognizes the original: these tables with at least these columns (every 4.x release has them), and no
# schema_migrations (ours records every migration there; the original never had the table).
ORIGINAL_COLUMNS: Final[dict[str, frozenset[str]]] = {
    "entities": frozenset({"id", "name", "type", "created_at", "metadata"}),
    "observations": frozenset({"id", "entity_id", "content", "created_at"}),
    "tags": frozenset({"id", "entity_id", "tag"}),
    "relations": frozenset({"id", "from_entity_id", "to_entity_id", "relation_type"}),
}

# Columns of our entities that early 4.x releases added later; a file from one of them gains them with our defaults.
_ENTITY_COLUMNS: Final = (
    ("status", "TEXT NOT NULL DEFAULT 'active'"),
    ("access_count", "INTEGER DEFAULT 0"),
    ("last_accessed_at", "TEXT"),
    ("confidence", "REAL DEFAULT 1.0"),
    ("namespace", "TEXT DEFAULT 'personal'"),
    ("recall_hits", "INTEGER DEFAULT 0"),
    ("recall_misses", "INTEGER DEFAULT 0"),
    ("title", "TEXT"),
)
# The original's dream_proposals lacks three of our columns (and early ones two more); its own stay.
_PROPOSAL_COLUMNS: Final = (
    ("kind", "TEXT NOT NULL DEFAULT 'digest'"),
    ("source_kind", "TEXT NOT NULL DEFAULT 'entities'"),
    ("package_id", "TEXT"),
    ("fingerprints", "TEXT NOT NULL DEFAULT '{}'"),
    ("applied_entity", "TEXT"),
)

# Our migrations whose tables the original already holds (in its shape, completed here); the rest run as usual.
ADOPTED_MIGRATIONS: Final = frozenset({1, 2, 4})
ADOPTED_KEY: Final = "adopted_from_typescript"
# A debugging seam (named apart from the test suite's own switches, which no product code reads): with this
# set to a file's path, adoption creates that file and waits inside its transaction (holding
# the write lock) until the file is removed or the process killed, so a test can kill an adoption half-way, or hold
# one open while a second process opens the file.
PAUSE_ENV: Final = "MEMESH_DEBUG_PAUSE_IN_ADOPTION"

_NORMALIZE: Final = (
    # Our reads need these set; the original left some of them NULL (and 4.0 files lack metadata on old rows).
    "UPDATE entities SET metadata = '{}' WHERE metadata IS NULL",
    "UPDATE entities SET status = 'active' WHERE status IS NULL",
    "UPDATE entities SET access_count = 0 WHERE access_count IS NULL",
    "UPDATE entities SET confidence = 1.0 WHERE confidence IS NULL",
    "UPDATE entities SET namespace = 'personal' WHERE namespace IS NULL",
    "UPDATE entities SET recall_hits = 0 WHERE recall_hits IS NULL",
    "UPDATE entities SET recall_misses = 0 WHERE recall_misses IS NULL",
    # The original wrote both `2026-12-07T03:03:18.663Z` and `2026-12-07 03:03:18`; ours compares them as text in
    # one form, `YYYY-MM-DD HH:MM:SS` UTC. A value SQLite cannot read as a time is kept as it was.
    "UPDATE entities SET created_at = COALESCE(datetime(created_at), created_at, datetime('now')) "
    "WHERE created_at IS NULL OR created_at IS NOT datetime(created_at)",
    "UPDATE entities SET last_accessed_at = COALESCE(datetime(last_accessed_at), last_accessed_at) "
    "WHERE last_accessed_at IS NOT datetime(last_accessed_at)",
    "UPDATE observations SET created_at = COALESCE(datetime(created_at), created_at, datetime('now')) "
    "WHERE created_at IS NULL OR created_at IS NOT datetime(created_at)",
    "UPDATE relations SET created_at = COALESCE(datetime(created_at), created_at, datetime('now')) "
    "WHERE created_at IS NULL OR created_at IS NOT datetime(created_at)",
    # One tag per memory once: our writes rely on it (the original enforced it with an index only since 4.2).
    "DELETE FROM tags WHERE id NOT IN (SELECT MIN(id) FROM tags GROUP BY entity_id, tag)",
)
_OUR_INDEXES: Final = (
    # IF NOT EXISTS: where the original has an index of the same name, it serves the same lookups.
    "CREATE UNIQUE INDEX IF NOT EXISTS idx_tags_entity_tag_unique ON tags(entity_id, tag)",
    "CREATE INDEX IF NOT EXISTS idx_entities_status ON entities(status)",
    "CREATE INDEX IF NOT EXISTS idx_entities_namespace ON entities(namespace)",
    "CREATE INDEX IF NOT EXISTS idx_entities_type ON entities(type, id)",
    "CREATE INDEX IF NOT EXISTS idx_observations_entity ON observations(entity_id, id)",
    "CREATE INDEX IF NOT EXISTS idx_tags_tag ON tags(tag, entity_id)",
    "CREATE INDEX IF NOT EXISTS idx_relations_to ON relations(to_entity_id)",
    "CREATE TABLE IF NOT EXISTS memesh_metadata (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    "CREATE TABLE IF NOT EXISTS counters (name TEXT PRIMARY KEY, value INTEGER NOT NULL)",
    "INSERT OR REPLACE INTO counters (name, value) SELECT 'entities', COUNT(*) FROM entities",
    "CREATE TRIGGER IF NOT EXISTS entities_count_insert AFTER INSERT ON entities "
    "BEGIN UPDATE counters SET value = value + 1 WHERE name = 'entities'; END",
    "CREATE TRIGGER IF NOT EXISTS entities_count_delete AFTER DELETE ON entities "
    "BEGIN UPDATE counters SET value = value - 1 WHERE name = 'entities'; END",
)
_PROPOSAL_INDEXES: Final = (
    "CREATE UNIQUE INDEX IF NOT EXISTS idx_dream_proposals_package ON dream_proposals(package_id) "
    "WHERE package_id IS NOT NULL",
    "CREATE INDEX IF NOT EXISTS idx_dream_proposals_cluster ON dream_proposals(project, cluster_key)",
)


def shape(conn: sqlite3.Connection) -> Shape:
    """What the file holds: nothing yet, our schema, the TypeScript MeMesh's, or another program's `entities`."""
    tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    if "schema_migrations" in tables:
        return "ours"
    if not tables & ORIGINAL_COLUMNS.keys():
        return "empty"
    for table, needed in ORIGINAL_COLUMNS.items():
        if table not in tables or not needed <= _columns(conn, table):
            return "foreign"
    return "original"


def _columns(conn: sqlite3.Connection, table: str) -> set[str]:
    return {row[1] for row in conn.execute(f"PRAGMA table_info({table})")}


def adopt(store: SqliteWrites, target: Path, *, keep_backup: bool = True) -> Path | None:
    """Adopt the TypeScript MeMesh's database at `target` in one transaction; returns the backup made (None when
    the file was not the original's, or `keep_backup` is off for a private copy). sqlite3.Error on failure, with
    nothing changed."""
    conn = store.conn
    if shape(conn) != "original":
        return None
    with store.transaction():
        if shape(conn) != "original":  # another process adopted it while this one waited for the lock
            return None
        backup = _backup(target) if keep_backup else None
        _bring_to_our_schema(conn)
        conn.execute(
            "INSERT INTO memesh_metadata (key, value) VALUES (?, ?) "
            "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
            (ADOPTED_KEY, json.dumps(_record(target, backup))),
        )
        store.migrate()  # the migrations the original has no counterpart for, nested in this transaction
        store.rebuild_index()
        if marker := os.environ.get(PAUSE_ENV):
            _paused(Path(marker))
    return backup


def _paused(marker: Path) -> None:
    marker.touch()
    while marker.exists():
        time.sleep(0.01)


def _bring_to_our_schema(conn: sqlite3.Connection) -> None:
    present = _columns(conn, "entities")
    for column, declaration in _ENTITY_COLUMNS:
        if column not in present:
            conn.execute(f"ALTER TABLE entities ADD COLUMN {column} {declaration}")
    for statement in _NORMALIZE:
        conn.execute(statement)
    # The original's keyword index is contentless, over (name, observations), unstemmed: ours replaces it, and
    # rebuild_index fills ours from the rows. Its fts5vocab table (fts_vocab) is left; it reads whichever index
    # has the name.
    conn.execute("DROP TABLE IF EXISTS entities_fts")
    # A trigger of the original's that kept its index in step would now write the original's columns into ours,
    # twice over with our own writes: its index is gone, so are they.
    for (trigger,) in conn.execute(
        "SELECT name FROM sqlite_master WHERE type = 'trigger' AND sql LIKE '%entities_fts%'"
    ).fetchall():
        conn.execute(f'DROP TRIGGER "{trigger}"')
    for statement in _OUR_INDEXES:
        conn.execute(statement)
    if "dream_proposals" in {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}:
        present = _columns(conn, "dream_proposals")
        for column, declaration in _PROPOSAL_COLUMNS:
            if column not in present:
                conn.execute(f"ALTER TABLE dream_proposals ADD COLUMN {column} {declaration}")
        for statement in _PROPOSAL_INDEXES:
            conn.execute(statement)
    else:
        from memesh.store.sqlite_base import _statements

        sql = next(sql for version, _, sql in MIGRATIONS if version == 4)
        for statement in _statements(sql):
            conn.execute(statement)
    conn.execute(
        "CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)"
    )
    at = datetime.now(UTC).isoformat()
    conn.executemany(
        "INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)",
        [
            (version, f"{name} (adopted from the TypeScript MeMesh)", at)
            for version, name, _ in MIGRATIONS
            if version in ADOPTED_MIGRATIONS
        ],
    )


def _record(target: Path, backup: Path | None) -> dict[str, str | None]:
    """What doctor reports: when, and the backup's path relative to the database's folder (the file may move)."""
    kept = None if backup is None else str(backup.relative_to(target.parent))
    return {"at": datetime.now(UTC).strftime("%Y-%m-%d %H:%M:%S"), "backup": kept}


def backup_name(target: Path, now: datetime) -> Path:
    """backups/<name>.before-python-<UTC time>.db beside the database."""
    return target.parent / "backups" / f"{target.stem}.before-python-{now.strftime('%Y%m%dT%H%M%SZ')}.db"


def _backup(target: Path) -> Path:
    """A consistent copy of the file as the original left it (its write-ahead log included), owner-only.

    Made through a second connection: the adopting one holds the write lock, which still lets another connection
    read the last committed state (SQLite's backup from the connection holding the lock waits on itself).
    Written under a temporary name, then renamed, so a kill mid-copy leaves no partial backup.
    """
    import tempfile  # (random, shutil): only an adoption needs it, not every open

    destination = backup_name(target, datetime.now(UTC))
    paths.ensure_private_dir(destination.parent)
    serial = 1
    while destination.exists():  # two adoptions of two files named alike in one second
        serial += 1
        destination = destination.with_name(f"{destination.stem}-{serial}.db")
    handle, name = tempfile.mkstemp(prefix=f".{destination.name}.", suffix=".partial", dir=destination.parent)
    os.close(handle)
    partial = Path(name)
    try:
        source = sqlite3.connect(target, timeout=BUSY_TIMEOUT_MS / 1000)
        copy = sqlite3.connect(partial)
        try:
            source.backup(copy)
        finally:
            copy.close()
            source.close()
        descriptor = os.open(partial, os.O_RDONLY)
        try:
            os.fsync(descriptor)
        finally:
            os.close(descriptor)
        partial.replace(destination)
    except BaseException:
        partial.unlink(missing_ok=True)
        raise
    return destination
