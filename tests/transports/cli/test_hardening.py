"""CLI edges the hostile probe found: export -o onto an existing file, learn's answer, NFC names, a foreign
or read-only database, a full disk."""

from __future__ import annotations

import shutil
import sqlite3
import stat
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from memesh.app.resources import Resources

if TYPE_CHECKING:
    from tests.transports.cli.conftest import Cli


def test_export_onto_an_existing_world_readable_file_leaves_it_owner_only(cli: Cli, tmp_path: Path) -> None:
    cli.ok("remember", "--name", "n", "--type", "t", "--obs", "x")
    target = tmp_path / "backup.json"
    target.write_text("old", encoding="utf-8")
    target.chmod(0o644)
    cli.ok("export", "-o", str(target), "--force")
    assert stat.S_IMODE(target.stat().st_mode) == 0o600
    assert '"n"' in target.read_text(encoding="utf-8")


def test_learn_answers_with_the_name_it_stored(cli: Cli) -> None:
    learned = cli.ok("learn", "--error", "boom", "--fix", "restart", "--project", "  my\tproj\u0065\u0301  ", "--json")
    name = learned.json()["name"]
    stored = [e["name"] for e in cli.ok("export").json()["entities"]]
    assert stored == [name]
    assert name.startswith("lesson-my proj\u00e9-")


def test_a_name_typed_in_nfd_and_in_nfc_is_one_memory(cli: Cli) -> None:
    cli.ok("remember", "--name", "cafe\u0301", "--type", "t", "--obs", "one")
    cli.ok("remember", "--name", "caf\u00e9", "--type", "t", "--obs", "two")
    [entity] = cli.ok("export").json()["entities"]
    assert entity["name"] == "caf\u00e9"
    assert entity["observations"] == ["one", "two"]
    assert cli.ok("forget", "--name", "cafe\u0301", "--json").json()["archived"] is True


@pytest.mark.sqlite_only  # a file that is not a database: PostgreSQL has no such file
def test_a_foreign_sqlite_file_that_is_refused_is_left_byte_identical(cli: Cli, memesh_env: Path) -> None:
    memesh_env.parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(memesh_env)
    with conn:
        conn.execute("CREATE TABLE entities (something TEXT)")  # another program's table of the same name
    conn.close()
    before = memesh_env.read_bytes()
    out = cli("recall", "--json")
    assert out.code == 1
    assert out.json()["errorCode"] == "operation.failed"
    assert memesh_env.read_bytes() == before
    assert sorted(p.name for p in memesh_env.parent.iterdir()) == [memesh_env.name]


@pytest.fixture
def immutable(memesh_env: Path) -> Iterator[Callable[[], None]]:
    """Makes the database file immutable (chattr +i: read-only even for root), undone after the test."""
    made: list[Path] = []

    def freeze() -> None:
        if shutil.which("chattr") is None:
            pytest.skip("chattr is not available")
        done = subprocess.run(["chattr", "+i", str(memesh_env)], capture_output=True, check=False)
        if done.returncode != 0:
            pytest.skip("this filesystem or user cannot make a file immutable")
        made.append(memesh_env)

    yield freeze
    for path in made:
        subprocess.run(["chattr", "-i", str(path)], check=False)


def test_a_read_only_database_serves_reads_and_refuses_writes_clearly(
    cli: Cli, memesh_env: Path, immutable: Callable[[], None]
) -> None:
    cli.ok("remember", "--name", "kept", "--type", "t", "--obs", "hello world")
    immutable()
    assert [e["name"] for e in cli.ok("recall", "hello", "--json").json()["entities"]] == ["kept"]
    assert cli.ok("export").json()["entity_count"] == 1
    refused = cli("remember", "--name", "new", "--type", "t", "--obs", "x", "--json")
    assert refused.code == 1
    assert refused.json()["errorCode"] == "operation.failed"
    assert "read-only" in refused.json()["error"]


@pytest.mark.sqlite_only  # fills the file's page limit
def test_a_full_disk_says_disk_full_and_stores_nothing(
    cli: Cli, memesh_env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from memesh.app.database import Database
    from memesh.app.database import open_database as real_open

    cli.ok("remember", "--name", "kept", "--type", "t", "--obs", "x")

    def full_disk_store(resources: Resources) -> Database:
        store = real_open(resources.db_path)
        pages = int(store.conn.execute("PRAGMA page_count").fetchone()[0])
        store.conn.execute(f"PRAGMA max_page_count = {pages + 1}")  # as if the disk filled up now
        return store

    opener = Resources.open_store
    monkeypatch.setattr(Resources, "open_store", full_disk_store)  # how every command opens its database
    big = " ".join(f"word{i}" for i in range(1000))
    refused = cli("remember", "--name", "big", "--type", "t", "--obs", big, "--obs", big + "!", "--json")
    assert refused.code == 1, refused
    assert refused.json()["error"].startswith("disk full")
    monkeypatch.setattr(Resources, "open_store", opener)
    assert [e["name"] for e in cli.ok("export").json()["entities"]] == ["kept"]
