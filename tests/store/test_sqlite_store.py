"""The SQLite adapter: migrations recorded and idempotent, owner-only files, WAL, foreign keys, atomic writes."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from memesh.model import EntityWrite, Filters
from memesh.store.errors import StoreError
from memesh.store.migrations import MIGRATIONS
from memesh.store.sqlite import SqliteStore, open_readonly, open_store
from tests.calls import match


def _write(name: str, observations: tuple[str, ...] = ("o",)) -> EntityWrite:
    return EntityWrite(
        entity_id=None,
        name=name,
        type="fact",
        title=None,
        namespace="personal",
        status="active",
        metadata={},
        observations=observations,
        tags=("t",),
    )


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_every_migration_is_recorded_in_schema_migrations(fresh_db: SqliteStore) -> None:
    rows = fresh_db.conn.execute("SELECT version, name FROM schema_migrations ORDER BY version").fetchall()
    assert rows == [(version, name) for version, name, _ in MIGRATIONS]


def test_reopening_a_database_applies_no_migration_twice_and_keeps_the_data(tmp_path: Path) -> None:
    path = tmp_path / "db" / "knowledge-graph.db"
    store = open_store(path)
    with store.transaction():
        store.save(_write("kept"))
    applied = store.conn.execute("SELECT version, applied_at FROM schema_migrations").fetchall()
    store.close()
    for _ in range(2):
        again = open_store(path)
        assert again.conn.execute("SELECT version, applied_at FROM schema_migrations").fetchall() == applied
        assert again.find("kept") is not None
        assert again.count() == 1
        again.close()


def test_the_database_folder_is_0700_and_its_files_0600(tmp_path: Path) -> None:
    folder = tmp_path / "fresh" / ".memesh"
    store = open_store(folder / "knowledge-graph.db")
    with store.transaction():
        store.save(_write("m"))
    files = sorted(folder.iterdir())
    assert {p.name for p in files} >= {"knowledge-graph.db", "knowledge-graph.db-wal", "knowledge-graph.db-shm"}
    assert _mode(folder) == 0o700
    for path in files:
        assert _mode(path) == 0o600, path.name
    store.close()


def test_an_existing_folder_keeps_the_mode_its_owner_gave_it(tmp_path: Path) -> None:
    folder = tmp_path / "shared"
    folder.mkdir(mode=0o755)
    folder.chmod(0o755)
    open_store(folder / "knowledge-graph.db").close()
    assert _mode(folder) == 0o755
    assert _mode(folder / "knowledge-graph.db") == 0o600


def test_every_open_takes_group_and_other_access_off_the_database_files(tmp_path: Path) -> None:
    db = tmp_path / "knowledge-graph.db"
    store = open_store(db)
    with store.transaction():
        store.save(_write("m"))
    store.close()
    # A copy made with a permissive umask, or an older version's files: readable by every account.
    sides = [db, Path(f"{db}-wal"), Path(f"{db}-shm")]
    for path in sides:
        path.touch()
        path.chmod(0o664)
    open_store(db).close()
    assert [_mode(path) for path in sides if path.exists()] == [0o600] * len([p for p in sides if p.exists()])
    # A read-only open (kg rename-project's listing) does it too, and keeps the owner's own bits: read-only stays so.
    db.chmod(0o444)
    reader = open_readonly(db)
    assert reader is not None
    reader.close()
    assert _mode(db) == 0o400


def test_a_file_that_is_not_a_memesh_database_keeps_its_mode(tmp_path: Path) -> None:
    foreign = tmp_path / "other.db"
    foreign.write_bytes(b"not sqlite at all" * 100)
    foreign.chmod(0o644)
    with pytest.raises(StoreError):
        open_store(foreign)
    assert _mode(foreign) == 0o644


@pytest.mark.sqlite_only
def test_the_journal_is_in_wal_mode(fresh_db: SqliteStore) -> None:
    assert fresh_db.conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


@pytest.mark.sqlite_only
def test_foreign_keys_are_enforced(fresh_db: SqliteStore) -> None:
    assert fresh_db.conn.execute("PRAGMA foreign_keys").fetchone()[0] == 1
    with pytest.raises(Exception, match="FOREIGN KEY"), fresh_db.transaction():
        fresh_db.conn.execute("INSERT INTO observations (entity_id, content) VALUES (999, 'orphan')")


def test_deleting_an_entity_cascades_to_its_rows(fresh_db: SqliteStore) -> None:
    with fresh_db.transaction():
        entity_id = fresh_db.save(_write("m", ("a", "b")))
    with fresh_db.transaction():
        fresh_db.conn.execute("DELETE FROM entities WHERE id = ?", (entity_id,))
    for table in ("observations", "tags"):
        assert fresh_db.conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0] == 0


def test_a_failed_write_inside_a_transaction_leaves_nothing_behind(fresh_db: SqliteStore) -> None:
    with fresh_db.transaction():
        fresh_db.save(_write("before"))
    with pytest.raises(RuntimeError), fresh_db.transaction():
        fresh_db.save(_write("doomed", ("lost",)))
        assert fresh_db.find("doomed") is not None
        raise RuntimeError("simulated failure after the write")
    assert fresh_db.find("doomed") is None
    assert fresh_db.count() == 1
    assert fresh_db.conn.execute("SELECT count(*) FROM observations").fetchone()[0] == 1
    assert fresh_db.search(match("lost"), Filters(), 10) == []
    assert not fresh_db.conn.in_transaction


def test_a_failed_nested_write_rolls_back_only_its_savepoint(fresh_db: SqliteStore) -> None:
    with fresh_db.transaction():
        fresh_db.save(_write("outer"))
        with pytest.raises(RuntimeError), fresh_db.transaction():
            fresh_db.save(_write("inner"))
            raise RuntimeError("inner failure")
    assert fresh_db.find("outer") is not None
    assert fresh_db.find("inner") is None


@pytest.mark.sqlite_only
def test_a_sql_error_mid_transaction_rolls_back_the_earlier_statements(fresh_db: SqliteStore) -> None:
    with pytest.raises(Exception, match="UNIQUE"), fresh_db.transaction():
        fresh_db.save(_write("first"))
        fresh_db.save(_write("first"))
    assert fresh_db.count() == 0
    assert fresh_db.conn.execute("SELECT count(*) FROM entities_fts").fetchone()[0] == 0


@pytest.mark.sqlite_only
def test_the_keyword_index_follows_every_write(fresh_db: SqliteStore) -> None:
    with fresh_db.transaction():
        entity_id = fresh_db.save(_write("m", ("apple",)))
    with fresh_db.transaction():
        fresh_db.save(
            EntityWrite(
                entity_id=entity_id,
                name="m",
                type="fact",
                title="Pear",
                namespace="personal",
                status="active",
                metadata={},
                observations=("banana",),
                tags=(),
            )
        )
    assert fresh_db.search(match("apple"), Filters(), 10) == []
    assert [found for found, _ in fresh_db.search(match("banana"), Filters(), 10)] == [entity_id]
    assert [found for found, _ in fresh_db.search(match("pear"), Filters(), 10)] == [entity_id]
    assert fresh_db.conn.execute("SELECT count(*) FROM entities_fts").fetchone()[0] == 1


def test_the_entity_counter_tracks_inserts_and_deletes(fresh_db: SqliteStore) -> None:
    with fresh_db.transaction():
        ids = [fresh_db.save(_write(f"m{n}")) for n in range(3)]
        fresh_db.conn.execute("DELETE FROM entities WHERE id = ?", (ids[0],))
    assert fresh_db.count() == 2
