"""memesh db copy --from the TypeScript MeMesh's database: into a new SQLite file or a PostgreSQL database with what
adoption keeps (every memory, observation, tag, relation, archived state, pin, task state, title, trust, provenance,
access count and timestamp), the original only read."""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from memesh.app import dispatch
from memesh.app.operations.database import COPY_DATABASE
from memesh.app.resources import Resources
from memesh.context import CallContext
from memesh.store.open import open_store
from tests.store.test_adoption import FIXTURES, memories

MEMESH = Path(sys.executable).with_name("memesh")

pytestmark = pytest.mark.skipif(not FIXTURES.is_dir(), reason="the upstream 4.6.0 fixtures are not on this machine")


@pytest.fixture(params=["knowledge-graph.db", "knowledge-graph-10k.db.gz"], ids=["33", "10k"])
def original(request: pytest.FixtureRequest, tmp_path: Path) -> Path:
    """A read-only copy of a fixture (the 10k one gunzipped) in a folder of its own, so nothing beside it hides."""
    target = tmp_path / "original" / "knowledge-graph.db"
    target.parent.mkdir()
    with (
        (
            gzip.open(FIXTURES / request.param)
            if request.param.endswith(".gz")
            else (FIXTURES / request.param).open("rb")
        ) as packed,
        target.open("wb") as out,
    ):
        shutil.copyfileobj(packed, out)
    target.chmod(0o444)
    return target


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _carried(target: Path | str) -> dict[int, dict[str, Any]]:
    """What the copy holds, by id, in the shape `memories` reads the original in (its own columns left out)."""
    store = open_store(target)
    try:
        ids = [entity_id for (entity_id,) in store.conn.execute("SELECT id FROM entities").fetchall()]
        ids_by_name = {}
        found: dict[int, dict[str, Any]] = {}
        for entity in store.load(ids):
            ids_by_name[entity.name] = entity.id
            found[entity.id] = {
                "name": entity.name, "type": entity.type, "status": entity.status, "metadata": entity.metadata,
                "title": entity.title, "namespace": entity.namespace, "access_count": entity.access_count,
                "last_accessed_at": entity.last_accessed_at, "confidence": entity.confidence,
                "recall_hits": entity.recall_hits, "recall_misses": entity.recall_misses,
                "created_at": entity.created_at, "observations": entity.observations, "tags": set(entity.tags),
                "relations": entity.relations,
            }  # fmt: skip
        for memory in found.values():
            memory["relations"] = {
                (ids_by_name[relation.to_name], relation.type)
                for relation in memory["relations"]
                if relation.from_name == memory["name"]
            }
        return found
    finally:
        store.close()


def _expected(original: Path) -> dict[int, dict[str, Any]]:
    expected = memories(original)
    for memory in expected.values():
        del memory["valid_from"], memory["valid_until"]  # the original's own columns, not ours
        memory["observations"] = [content for content, _ in memory["observations"]]
    return expected


def _copy(source: Path, target: str, ctx: CallContext) -> dict[str, Any]:
    return dict(dispatch.run(COPY_DATABASE, Resources(), {"from": str(source), "to": target}, ctx).unwrap())


def test_the_originals_database_copies_whole_into_a_new_sqlite_file(
    original: Path, tmp_path: Path, ctx: CallContext
) -> None:
    before = _sha256(original)
    target = tmp_path / "python.db"
    copied = _copy(original, str(target), ctx)
    assert copied["copied"]["entities"] == len(_expected(original))
    assert _carried(target) == _expected(original)
    assert _sha256(original) == before
    assert [path.name for path in original.parent.iterdir()] == ["knowledge-graph.db"]  # no -wal, -shm or backups
    assert original.stat().st_mode & 0o777 == 0o444


def test_the_originals_database_copies_whole_into_postgresql(original: Path, pg_url: str, ctx: CallContext) -> None:
    before = _sha256(original)
    copied = _copy(original, pg_url, ctx)
    assert copied["copied"]["relations"] == sum(len(m["relations"]) for m in _expected(original).values())
    carried = _carried(pg_url)
    for memory in carried.values():  # PostgreSQL keeps times as its timestamps; compare SQLite's text form
        memory["created_at"] = memory["created_at"][:19].replace("T", " ")
        if memory["last_accessed_at"] is not None:
            memory["last_accessed_at"] = memory["last_accessed_at"][:19].replace("T", " ")
    assert carried == _expected(original)
    assert _sha256(original) == before


def test_the_cli_copies_the_originals_file_as_a_user_types_it(tmp_path: Path) -> None:
    original = tmp_path / "original" / "knowledge-graph.db"
    original.parent.mkdir()
    shutil.copyfile(FIXTURES / "knowledge-graph.db", original)
    env = {
        key: value
        for key, value in os.environ.items()
        if (not key.startswith("MEMESH_") or key == "MEMESH_DAEMON") and key != "HOME"
    }
    env.update({"HOME": str(tmp_path), "MEMESH_UPDATE_CHECK": "0"})
    target = tmp_path / ".memesh" / "knowledge-graph.db"
    done = subprocess.run(
        [str(MEMESH), "db", "copy", "--from", str(original), "--to", str(target), "--json"],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["copied"]["observations"] == 82
    doctor = subprocess.run(
        [str(MEMESH), "doctor", "--json"], env=env, cwd=tmp_path, capture_output=True, text=True, check=False
    )
    checks = {check["id"]: check["status"] for check in json.loads(doctor.stdout)["checks"]}
    assert checks["database"] == "pass" and checks["adoption"] == "pass"
