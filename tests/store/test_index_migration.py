"""The keyword index design: Porter stems, the upgrade of an index built before them, and reindex."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from memesh.model import Filters
from memesh.store.migrations import MIGRATIONS
from memesh.store.sqlite import SqliteStore, open_store
from memesh.store.sqlite_base import _statements
from tests.calls import match
from tests.conftest import Caller


def _vocabulary(store: SqliteStore) -> set[str]:
    return {row[0] for row in store.conn.execute("SELECT term FROM entities_fts_vocab")}


def _found(store: SqliteStore, term: str) -> list[int]:
    return [entity_id for entity_id, _ in store.search(match(term), Filters(), 10)]


def _database_at_version_1(path: Path) -> None:
    """A database as the first release wrote it: migration 1 only, one memory indexed without stems."""
    path.parent.mkdir(parents=True)
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute(
        "CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)"
    )
    version, name, sql = MIGRATIONS[0]
    for statement in _statements(sql):
        conn.execute(statement)
    conn.execute("INSERT INTO schema_migrations VALUES (?, ?, '2026-01-01T00:00:00+00:00')", (version, name))
    conn.execute("INSERT INTO entities (id, name, type, title) VALUES (7, 'trip', 'note', 'Summer plans')")
    conn.execute("INSERT INTO observations (entity_id, content) VALUES (7, 'We went camping by the lakes')")
    conn.execute("INSERT INTO observations (entity_id, content) VALUES (7, '湖畔で野営した')")
    conn.execute(
        "INSERT INTO entities_fts (rowid, name, title, observations) VALUES (7, 'trip', 'Summer plans', ?)",
        ("We went camping by the lakes\n湖畔 畔で で野 野営 営し した",),
    )
    conn.close()


def test_an_index_built_without_stems_is_rebuilt_with_them_on_upgrade(tmp_path: Path) -> None:
    path = tmp_path / "memesh" / "knowledge-graph.db"
    _database_at_version_1(path)
    store = open_store(path)
    try:
        versions = [row[0] for row in store.conn.execute("SELECT version FROM schema_migrations ORDER BY version")]
        assert versions == [version for version, _, _ in MIGRATIONS]
        assert {"camp", "lake", "plan"} <= _vocabulary(store)
        assert "camping" not in _vocabulary(store)
        assert _found(store, "camped") == _found(store, "lake") == _found(store, "野営") == [7]
        entity = store.find("trip")
        assert entity is not None
        assert entity.observations == ["We went camping by the lakes", "湖畔で野営した"]
        assert store.count() == 1
    finally:
        store.close()


@pytest.mark.sqlite_only
def test_reindex_rebuilds_the_stemmed_design(fresh_db: SqliteStore, tools: Caller) -> None:
    tools.ok("remember", {"name": "a", "type": "note", "observations": ["supporting the volunteers"]})
    before = _vocabulary(fresh_db)
    assert fresh_db.rebuild_index() == 1
    assert _vocabulary(fresh_db) == before
    assert {"support", "volunt"} <= before
    assert _found(fresh_db, "supported") == _found(fresh_db, "volunteer") == [1]
