"""A database the TypeScript MeMesh 4.6.0 wrote, adopted on first open: every row carried over, the original's own
tables and columns untouched, a backup kept, adopted once by concurrent openers, and left as it was when killed."""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from memesh.errors import ErrorCode
from memesh.store.errors import StoreError
from memesh.store.migrations import MIGRATIONS
from memesh.store.sqlite import open_store
from memesh.store.sqlite_adoption import ADOPTED_KEY, PAUSE_ENV

FIXTURES = Path("/work/shared/fixtures/upstream-memesh-4.6.0")
MEMESH = Path(sys.executable).with_name("memesh")
WAIT_SECONDS = 60.0
# The original's tables MeMesh for Python does not know (its vector index's shadow tables among them).
ORIGINALS_OWN = ("hook_runs", "llm_telemetry", "conflict_judged_pairs", "entities_vec_rowids", "entities_vec_chunks")

pytestmark = pytest.mark.skipif(not FIXTURES.is_dir(), reason="the upstream 4.6.0 fixtures are not on this machine")


def place_original(folder: Path, which: str = "knowledge-graph.db") -> Path:
    """A writable copy of a fixture at `folder`/knowledge-graph.db (the 10k one gunzipped), owner-only."""
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / "knowledge-graph.db"
    if which.endswith(".gz"):
        with gzip.open(FIXTURES / which) as packed, target.open("wb") as out:
            shutil.copyfileobj(packed, out)
    else:
        shutil.copyfile(FIXTURES / which, target)
    target.chmod(0o600)
    return target


@pytest.fixture(params=["knowledge-graph.db", "knowledge-graph-10k.db.gz"], ids=["33", "10k"])
def original(request: pytest.FixtureRequest, tmp_path: Path) -> Path:
    return place_original(tmp_path / "memesh", request.param)


@pytest.fixture
def small_original(tmp_path: Path) -> Path:
    return place_original(tmp_path / "memesh")


def _read(path: Path) -> sqlite3.Connection:
    """Read-only; as immutable (no -wal or -shm made beside it) unless a write-ahead log holds changes."""
    wal = Path(f"{path}-wal")
    options = "mode=ro" if wal.is_file() and wal.stat().st_size > 0 else "mode=ro&immutable=1"
    return sqlite3.connect(f"{path.absolute().as_uri()}?{options}", uri=True)


def memories(path: Path) -> dict[int, dict[str, Any]]:
    """Every memory with what adoption must carry over, read with plain SQL; times as SQLite reads them."""
    conn = _read(path)
    try:
        found = {
            row[0]: {
                "name": row[1], "type": row[2], "status": row[3], "metadata": json.loads(row[4] or "{}"),
                "title": row[5], "namespace": row[6], "access_count": row[7], "last_accessed_at": row[8],
                "confidence": row[9], "recall_hits": row[10], "recall_misses": row[11], "created_at": row[12],
                "valid_from": row[13], "valid_until": row[14], "observations": [], "tags": set(), "relations": set(),
            }
            for row in conn.execute(
                "SELECT id, name, type, status, metadata, title, namespace, access_count, "
                "datetime(last_accessed_at), confidence, recall_hits, recall_misses, datetime(created_at), "
                "valid_from, valid_until FROM entities"
            )
        }  # fmt: skip
        for entity_id, content, created in conn.execute(
            "SELECT entity_id, content, datetime(created_at) FROM observations ORDER BY id"
        ):
            found[entity_id]["observations"].append((content, created))
        for entity_id, tag in conn.execute("SELECT entity_id, tag FROM tags"):
            found[entity_id]["tags"].add(tag)
        for source, to, kind in conn.execute("SELECT from_entity_id, to_entity_id, relation_type FROM relations"):
            found[source]["relations"].add((to, kind))
        return found
    finally:
        conn.close()


def table_rows(path: Path, tables: tuple[str, ...]) -> dict[str, list[tuple[Any, ...]]]:
    conn = _read(path)
    try:
        return {table: sorted(conn.execute(f"SELECT * FROM {table}").fetchall(), key=repr) for table in tables}
    finally:
        conn.close()


def ordinary_tables(path: Path) -> tuple[str, ...]:
    """Every table whose rows can be read without a module the original loaded (its vec0 index is one)."""
    conn = _read(path)
    try:
        return tuple(
            row[0]
            for row in conn.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table' AND sql NOT LIKE 'CREATE VIRTUAL TABLE%' "
                "ORDER BY name"
            )
        )
    finally:
        conn.close()


def schema_of(path: Path) -> list[tuple[str, str]]:
    conn = _read(path)
    try:
        return sorted(conn.execute("SELECT name, sql FROM sqlite_master WHERE sql IS NOT NULL").fetchall())
    finally:
        conn.close()


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_every_memory_observation_tag_relation_and_archived_state_is_carried_over(original: Path) -> None:
    before = memories(original)
    store = open_store(original)
    store.close()
    after = memories(original)
    assert after == before
    assert len(after) in (33, 10_000)
    assert any(memory["status"] == "archived" for memory in before.values()) == (len(before) == 33)


def test_pins_task_state_titles_trust_and_provenance_read_back_through_the_store(small_original: Path) -> None:
    store = open_store(small_original)
    try:
        pinned = store.find("auth-decision")
        task = store.find("task-state:widget")
        forgotten = store.find("old-idea")
    finally:
        store.close()
    assert pinned is not None and pinned.metadata["pin"] is True and pinned.metadata["trust"] == "trusted"
    assert pinned.metadata["provenance"]["source"] == "local"
    assert pinned.access_count == 1 and pinned.created_at == "2026-11-07 03:03:18"
    assert task is not None and task.title == "Ship OAuth login"
    assert task.metadata["task_state"]["next"] == "Write the token refresh test"
    assert forgotten is not None and forgotten.status == "archived"


def test_the_keyword_index_is_rebuilt_so_recall_finds_adopted_memories(original: Path) -> None:
    store = open_store(original)
    try:
        assert store.index_matches()[0] == store.index_matches()[1] == len(memories(original))
        assert store.conn.execute("SELECT COUNT(*) FROM counters WHERE name = 'entities'").fetchone()[0] == 1
        assert store.missing_migrations() == []
    finally:
        store.close()


def test_the_originals_own_tables_and_columns_are_left_untouched(original: Path) -> None:
    before = table_rows(original, ORIGINALS_OWN)
    conn = _read(original)
    valid = conn.execute("SELECT id, valid_from, valid_until FROM entities ORDER BY id").fetchall()
    proposal_columns = {row[1] for row in conn.execute("PRAGMA table_info(dream_proposals)")}
    conn.close()
    store = open_store(original)
    store.close()
    assert table_rows(original, ORIGINALS_OWN) == before
    conn = _read(original)
    try:
        assert conn.execute("SELECT id, valid_from, valid_until FROM entities ORDER BY id").fetchall() == valid
        assert proposal_columns <= {row[1] for row in conn.execute("PRAGMA table_info(dream_proposals)")}
        original_keys = {row[0] for row in conn.execute("SELECT key FROM memesh_metadata")}
        assert {"embedding_dimension", "fts_segmentation_version", ADOPTED_KEY} <= original_keys
        assert conn.execute("SELECT COUNT(*) FROM sqlite_master WHERE name = 'entities_vec'").fetchone()[0] == 1
    finally:
        conn.close()


def test_an_owner_only_backup_of_the_original_is_kept_beside_it_and_named_in_the_database(
    small_original: Path,
) -> None:
    before_rows = table_rows(small_original, ordinary_tables(small_original))
    before_schema = schema_of(small_original)
    store = open_store(small_original)
    store.close()
    [backup] = (small_original.parent / "backups").iterdir()
    assert backup.name.startswith("knowledge-graph.before-python-") and backup.suffix == ".db"
    assert backup.stat().st_mode & 0o777 == 0o600
    assert (small_original.parent / "backups").stat().st_mode & 0o777 == 0o700
    assert schema_of(backup) == before_schema
    assert table_rows(backup, ordinary_tables(backup)) == before_rows
    conn = _read(small_original)
    [(recorded,)] = conn.execute("SELECT value FROM memesh_metadata WHERE key = ?", (ADOPTED_KEY,)).fetchall()
    conn.close()
    assert json.loads(recorded)["backup"] == f"backups/{backup.name}"


def test_a_second_open_finds_the_adopted_schema_and_adopts_nothing_again(small_original: Path) -> None:
    open_store(small_original).close()
    adopted = schema_of(small_original)
    open_store(small_original).close()
    assert schema_of(small_original) == adopted
    assert len(list((small_original.parent / "backups").iterdir())) == 1


def test_a_file_whose_entities_table_another_program_made_is_refused_and_left_as_it_was(tmp_path: Path) -> None:
    other = tmp_path / "other.db"
    conn = sqlite3.connect(other)
    conn.execute("CREATE TABLE entities (id INTEGER PRIMARY KEY, label TEXT)")
    conn.execute("INSERT INTO entities (label) VALUES ('mine')")
    conn.commit()
    conn.close()
    before = sha256(other)
    with pytest.raises(StoreError) as raised:
        open_store(other)
    assert raised.value.error.code == ErrorCode.INTERNAL and raised.value.error.data["store"] == "cannot-open"
    assert str(tmp_path) not in raised.value.error.message
    assert sha256(other) == before and not (tmp_path / "backups").exists()


def _environment(home: Path, **extra: str) -> dict[str, str]:
    env = {
        key: value
        for key, value in os.environ.items()
        if (not key.startswith("MEMESH_") or key == "MEMESH_DAEMON") and key != "HOME"
    }
    env.update({"HOME": str(home), "MEMESH_UPDATE_CHECK": "0", "PYTHONIOENCODING": "utf-8", **extra})
    return env


def _wait_for(condition: Any, process: subprocess.Popen[str]) -> None:
    """Until `condition()` holds; fails when the process ended first (with what it said)."""
    import time

    deadline = time.monotonic() + WAIT_SECONDS
    while not condition():
        if process.poll() is not None:
            pytest.fail(f"the process ended first: {process.communicate()}")
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.01)


@pytest.fixture
def home_with_original(tmp_path: Path) -> Iterator[Path]:
    home = tmp_path / "home"
    place_original(home / ".memesh")
    yield home


def _recall(home: Path, **extra: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [str(MEMESH), "recall", "oauth", "--json"],
        env=_environment(home, **extra),
        cwd=home.parent,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def test_a_kill_during_adoption_leaves_the_original_byte_for_byte_and_in_its_own_shape(
    home_with_original: Path,
) -> None:
    db = home_with_original / ".memesh" / "knowledge-graph.db"
    before_bytes, before_schema = sha256(db), schema_of(db)
    before_rows = table_rows(db, ordinary_tables(db))
    marker = home_with_original.parent / "adopting"
    process = _recall(home_with_original, **{PAUSE_ENV: str(marker)})
    _wait_for(marker.exists, process)
    process.send_signal(signal.SIGKILL)
    process.communicate()
    assert sha256(db) == before_bytes  # the uncommitted changes never reached the file (only its write-ahead log)
    assert schema_of(db) == before_schema
    assert table_rows(db, ordinary_tables(db)) == before_rows
    again = _recall(home_with_original)
    out, err = again.communicate(timeout=WAIT_SECONDS)
    assert again.returncode == 0, err
    assert "auth-decision" in {entity["name"] for entity in json.loads(out)["entities"]}


def _holds_open(process: subprocess.Popen[str], db: Path) -> bool:
    try:
        links = [str(entry.readlink()) for entry in Path(f"/proc/{process.pid}/fd").iterdir()]
    except OSError:
        return False
    return str(db) in links


def test_two_processes_opening_the_original_at_once_adopt_it_once(home_with_original: Path) -> None:
    db = home_with_original / ".memesh" / "knowledge-graph.db"
    marker = home_with_original.parent / "adopting"
    first = _recall(home_with_original, **{PAUSE_ENV: str(marker)})
    _wait_for(marker.exists, first)
    second = _recall(home_with_original)  # waits on the first's write lock
    _wait_for(lambda: _holds_open(second, db), second)
    marker.unlink()
    answers = [process.communicate(timeout=WAIT_SECONDS) for process in (first, second)]
    assert [first.returncode, second.returncode] == [0, 0], answers
    for out, _ in answers:
        assert "auth-decision" in {entity["name"] for entity in json.loads(out)["entities"]}
    assert len(list((db.parent / "backups").iterdir())) == 1
    conn = _read(db)
    try:
        versions = [row[0] for row in conn.execute("SELECT version FROM schema_migrations ORDER BY version")]
        assert versions == sorted({version for version, *_ in MIGRATIONS})  # each recorded once, every one
    finally:
        conn.close()


def _early_original(path: Path) -> None:
    """A file in the shape of an early 4.x release: no title, namespace or counters columns, no unique tag index,
    a duplicate tag, NULL metadata, no dream_proposals, and an FTS trigger of the original's."""
    conn = sqlite3.connect(path)
    conn.executescript(
        """
        CREATE TABLE entities (id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT NOT NULL UNIQUE, type TEXT NOT NULL,
            created_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP, metadata JSON);
        CREATE TABLE observations (id INTEGER PRIMARY KEY AUTOINCREMENT, entity_id INTEGER NOT NULL,
            content TEXT NOT NULL, created_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP);
        CREATE TABLE relations (id INTEGER PRIMARY KEY AUTOINCREMENT, from_entity_id INTEGER NOT NULL,
            to_entity_id INTEGER NOT NULL, relation_type TEXT NOT NULL, metadata JSON,
            created_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP);
        CREATE TABLE tags (id INTEGER PRIMARY KEY AUTOINCREMENT, entity_id INTEGER NOT NULL, tag TEXT NOT NULL);
        CREATE VIRTUAL TABLE entities_fts USING fts5(name, observations, content='');
        CREATE TRIGGER entities_fts_sync AFTER INSERT ON entities
            BEGIN INSERT INTO entities_fts (rowid, name, observations) VALUES (NEW.id, NEW.name, ''); END;
        INSERT INTO entities (name, type, created_at, metadata)
            VALUES ('early-one', 'note', '2025-01-02T03:04:05Z', NULL),
                   ('early-two', 'decision', NULL, '{"pin": true}');
        INSERT INTO observations (entity_id, content) VALUES (1, 'written by an early release');
        INSERT INTO tags (entity_id, tag) VALUES (1, 'project:old'), (1, 'project:old');
        INSERT INTO relations (from_entity_id, to_entity_id, relation_type) VALUES (1, 2, 'relates_to');
        """
    )
    conn.close()


def test_an_early_4x_file_gains_the_columns_it_lacks_with_our_defaults_and_stays_whole(tmp_path: Path) -> None:
    path = tmp_path / "memesh" / "knowledge-graph.db"
    path.parent.mkdir()
    _early_original(path)
    store = open_store(path)
    try:
        one, two = store.find("early-one"), store.find("early-two")
        hits = store.conn.execute("SELECT rowid FROM entities_fts WHERE entities_fts MATCH 'early'").fetchall()
    finally:
        store.close()
    assert one is not None and two is not None
    assert (one.namespace, one.status, one.title, one.metadata) == ("personal", "active", None, {})
    assert one.created_at == "2025-01-02 03:04:05" and one.tags == ["project:old"]
    assert one.observations == ["written by an early release"]
    assert [(r.from_name, r.to_name, r.type) for r in one.relations] == [("early-one", "early-two", "relates_to")]
    assert two.metadata == {"pin": True} and two.created_at  # a missing time is given the adoption's
    assert sorted(hits) == [(1,), (2,)]


def test_memories_written_after_adoption_are_indexed_once(tmp_path: Path) -> None:
    path = tmp_path / "memesh" / "knowledge-graph.db"
    path.parent.mkdir()
    _early_original(path)
    done = subprocess.run(
        [str(MEMESH), "remember", "--name", "after", "--type", "note", "--obs", "an early file, adopted", "--json"],
        env=_environment(tmp_path, MEMESH_DB_PATH=str(path)),
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    conn = _read(path)
    try:
        assert conn.execute("SELECT COUNT(*) FROM entities_fts WHERE entities_fts MATCH 'adopted'").fetchone() == (1,)
        assert conn.execute("SELECT COUNT(*) FROM sqlite_master WHERE name = 'entities_fts_sync'").fetchone() == (0,)
    finally:
        conn.close()


def test_a_hook_opening_the_original_first_adopts_it_the_same_way(small_original: Path) -> None:
    from memesh.store.sqlite_hooks import open_hook_store

    before = memories(small_original)
    store = open_hook_store(small_original)
    try:
        assert store.conn.execute("SELECT COUNT(*) FROM entities_fts").fetchone() == (len(before),)
    finally:
        store.close()
    assert memories(small_original) == before
    assert len(list((small_original.parent / "backups").iterdir())) == 1


def test_an_adoption_whose_backup_cannot_be_written_changes_nothing_and_says_so(small_original: Path) -> None:
    (small_original.parent / "backups").write_text("a file where the backups folder would go", encoding="utf-8")
    before = sha256(small_original)
    with pytest.raises(StoreError) as raised:
        open_store(small_original)
    assert raised.value.error.data["store"] == "cannot-open"
    assert str(small_original.parent) not in raised.value.error.message
    assert sha256(small_original) == before
    conn = _read(small_original)
    try:
        assert conn.execute("SELECT COUNT(*) FROM sqlite_master WHERE name = 'schema_migrations'").fetchone() == (0,)
    finally:
        conn.close()
