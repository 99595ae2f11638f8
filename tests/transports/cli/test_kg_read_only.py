"""`memesh kg rename-project` listing and dry run on a database file and folder the user cannot write to.

The suite may run as root, whom file modes do not stop. So each command runs as a real process with every
capability dropped (`setpriv --bounding-set=-all`): still uid 0, but held to the permission bits like any user,
which a probe write checks before the test relies on it. As a non-root user the command runs as it is.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from memesh.store import sqlite as store_module
from memesh.store.sqlite import open_readonly, open_store
from tests.transports.cli.conftest import MEMESH_BIN

SETPRIV = shutil.which("setpriv")


def _unprivileged(argv: list[str]) -> list[str]:
    if os.geteuid() != 0:
        return argv
    if SETPRIV is None:
        pytest.skip("running as root without setpriv: file modes cannot be made to bind")
    return [SETPRIV, "--bounding-set=-all", "--inh-caps=-all", *argv]


def _run(folder: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    env = {
        "MEMESH_DAEMON": "0",
        "HOME": str(folder.parent / "home"),
        "MEMESH_DB_PATH": str(folder / "knowledge-graph.db"),
    }
    return subprocess.run(
        _unprivileged([str(MEMESH_BIN), "kg", "rename-project", *argv]),
        env={**env, "PATH": str(Path(sys.executable).parent)},
        capture_output=True,
        text=True,
        check=False,
    )


def _read_only(folder: Path) -> None:
    for item in folder.iterdir():
        item.chmod(0o444)
    folder.chmod(0o555)
    probe = subprocess.run(_unprivileged(["sh", "-c", f"touch '{folder}/probe'"]), capture_output=True, check=False)
    if probe.returncode == 0:
        pytest.skip("file modes do not bind here even without capabilities")


@pytest.fixture
def folder(tmp_path: Path) -> Iterator[Path]:
    folder = tmp_path / "backup"
    (tmp_path / "home").mkdir()
    store = open_store(folder / "knowledge-graph.db")
    with store.transaction():
        store.conn.execute("INSERT INTO entities (name, type) VALUES ('a', 'fact'), ('b', 'fact')")
        store.conn.execute("INSERT INTO tags (entity_id, tag) SELECT id, 'project:tim' FROM entities")
    store.close()
    yield folder
    folder.chmod(0o755)


def _listing(folder: Path) -> dict[str, int]:
    return {item.name: item.stat().st_size for item in folder.iterdir()}


def _one_line(text: str) -> str:
    assert text.count("\n") == 1, text
    return text


@pytest.mark.parametrize("log", ["none", "empty"])
def test_listing_and_the_dry_run_read_a_read_only_database_as_immutable(folder: Path, log: str) -> None:
    if log == "empty":
        (folder / "knowledge-graph.db-wal").write_bytes(b"")
    _read_only(folder)
    before = _listing(folder)
    listed = _run(folder)
    assert listed.returncode == 0, listed.stderr
    assert listed.stdout.strip() == "project:tim  2 entities, 0 messages"
    preview = _run(folder, "--from", "tim", "--to", "TIM")
    assert preview.returncode == 0, preview.stderr
    assert "Dry run (nothing written)" in preview.stdout and "2 retagged" in preview.stdout
    assert _listing(folder) == before  # nothing created, nothing changed
    applied = _run(folder, "--from", "tim", "--to", "TIM", "--apply")
    assert applied.returncode == 1 and "nothing was changed" in applied.stderr
    assert _listing(folder) == before


def test_a_non_empty_write_ahead_log_stops_with_one_line(folder: Path, tmp_path: Path) -> None:
    # A copy taken while a writer still had changes in its log: the -wal travels with the file.
    source = tmp_path / "live.db"
    shutil.copy(folder / "knowledge-graph.db", source)
    writer = sqlite3.connect(source)
    writer.execute("PRAGMA journal_mode = WAL")
    writer.execute("PRAGMA wal_autocheckpoint = 0")
    writer.execute("INSERT INTO tags (entity_id, tag) VALUES (1, 'project:only-in-the-log')")
    writer.commit()
    shutil.copy(source, folder / "knowledge-graph.db")
    shutil.copy(f"{source}-wal", folder / "knowledge-graph.db-wal")
    writer.close()
    assert (folder / "knowledge-graph.db-wal").stat().st_size > 0
    _read_only(folder)
    before = _listing(folder)
    for argv in ([], ["--from", "tim", "--to", "TIM"], ["--json"]):
        done = _run(folder, *argv)
        assert done.returncode == 1, argv
        shown = done.stdout if "--json" in argv else done.stderr
        assert "write-ahead log" in _one_line(shown)
    assert _listing(folder) == before


def test_no_database_in_a_read_only_folder(folder: Path) -> None:
    (folder / "knowledge-graph.db").unlink()
    _read_only(folder)
    listed = _run(folder)
    assert listed.returncode == 0 and listed.stdout.strip() == "No MeMesh database yet."
    assert _run(folder, "--from", "tim", "--to", "TIM").returncode == 1
    assert list(folder.iterdir()) == []


def test_argument_refusals_come_before_the_database_is_opened(folder: Path) -> None:
    (folder / "knowledge-graph.db-wal").write_bytes(b"not a log, but not empty either")
    _read_only(folder)
    for argv in (["--from", "a"], ["--apply"], ["--from", "a", "--to", "a"], ["--from", "a", "--to", "/x"]):
        done = _run(folder, *argv)
        assert done.returncode == 1, argv
        assert "write-ahead log" not in done.stderr, argv


def test_the_immutable_read_is_the_fallback_only(folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """In this process (which file modes may not stop): the usual read first; immutable only when it fails."""
    store = open_readonly(folder / "knowledge-graph.db")
    assert store is not None and store.open_mode == "ro"
    store.close()
    reading = store_module._reading

    def unwritable(target: Path, options: str) -> store_module.SqliteStore:
        if "immutable" not in options:
            raise sqlite3.OperationalError("attempt to write a readonly database")
        return reading(target, options)

    monkeypatch.setattr(store_module, "_reading", unwritable)
    store = open_readonly(folder / "knowledge-graph.db")
    assert store is not None and store.open_mode == "immutable" and store.read_only
    assert store.project_counts() == {"tim": {"entities": 2, "messages": 0}}
    store.close()
    assert stat.S_IMODE((folder / "knowledge-graph.db").stat().st_mode) == 0o600


def test_apply_on_a_read_only_file_changes_nothing_and_says_so(folder: Path) -> None:
    (folder / "knowledge-graph.db").chmod(0o444)
    _read_only(folder)
    folder.chmod(0o755)  # the folder is writable again: only the file is not
    applied = _run(folder, "--from", "tim", "--to", "TIM", "--apply")
    assert applied.returncode == 1 and "nothing was changed" in _one_line(applied.stderr)
    assert not (folder / "backups").exists()
    assert _run(folder).stdout.strip() == "project:tim  2 entities, 0 messages"


def test_a_left_over_rollback_journal_is_refused_too(folder: Path) -> None:
    (folder / "knowledge-graph.db-journal").write_bytes(b"\xd9\xd5\x05\xf9\x20\xa1\x63\xd7" + b"\0" * 504)
    _read_only(folder)
    done = _run(folder)
    assert done.returncode == 1 and "rollback journal" in _one_line(done.stderr)
