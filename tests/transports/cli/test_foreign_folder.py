"""A MeMesh folder or database file of another user is refused for the database as for the router (issue 35): its
owner could plant the file and read the next write. Nothing is written there, the refusal names the fix once, and
doctor's Database row fails."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

MEMESH_BIN = Path(sys.executable).parent / "memesh"
NOBODY = 65534
pytestmark = pytest.mark.skipif(os.getuid() != 0, reason="making a file of another user needs root")


@pytest.fixture
def folder(tmp_path: Path) -> Iterator[Path]:
    path = tmp_path / "memesh"
    path.mkdir(mode=0o700)
    yield path


def _memesh(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(MEMESH_BIN), *args], env=env, capture_output=True, text=True, timeout=60, check=False)


def _env(folder: Path, db: Path | None = None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("MEMESH_DB_PATH", "MEMESH_DATABASE_URL")}
    env["MEMESH_DIR"] = str(folder)
    if db is not None:
        env["MEMESH_DB_PATH"] = str(db)
    return env


def _database_row(env: dict[str, str]) -> tuple[int, dict[str, str]]:
    done = _memesh(env, "doctor", "--json")
    [row] = [c for c in json.loads(done.stdout)["checks"] if c["id"] == "database"]
    return done.returncode, row


def test_a_memesh_folder_of_another_user_is_not_used_for_the_database_and_doctor_fails(folder: Path) -> None:
    os.chown(folder, NOBODY, NOBODY)
    wrote = _memesh(_env(folder), "remember", "--name", "secret-plan", "--type", "decision", "--obs", "the plan")
    assert wrote.returncode != 0 and "Traceback" not in wrote.stderr
    assert wrote.stderr.count("belongs to another user (uid 65534)") == 1 and "MEMESH_DIR" in wrote.stderr
    assert not (folder / "knowledge-graph.db").exists()
    code, row = _database_row(_env(folder))
    assert code == 1 and row["status"] == "fail" and "another user" in row["detail"]


def test_a_database_file_another_user_planted_in_the_folder_is_not_written(folder: Path) -> None:
    db = folder / "knowledge-graph.db"
    db.write_bytes(b"")
    db.chmod(0o666)
    os.chown(db, NOBODY, NOBODY)
    wrote = _memesh(_env(folder), "remember", "--name", "secret-plan", "--type", "decision", "--obs", "the plan")
    assert wrote.returncode != 0 and "Traceback" not in wrote.stderr
    assert db.read_bytes() == b""
    code, row = _database_row(_env(folder))
    assert code == 1 and row["status"] == "fail" and "MEMESH_DB_PATH" in row["detail"]


def test_a_folder_and_database_of_our_own_are_used_as_before(folder: Path) -> None:
    wrote = _memesh(_env(folder), "remember", "--name", "plan", "--type", "decision", "--obs", "the plan")
    assert wrote.returncode == 0, wrote.stderr
    code, row = _database_row(_env(folder))
    assert code in (0, 1) and row["status"] == "pass"
