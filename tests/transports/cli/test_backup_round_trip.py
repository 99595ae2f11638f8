"""Export everything, import it into a fresh database through the CLI: every memory comes back as it was."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from tests.backends import Backend
    from tests.transports.cli.conftest import Cli

# Rebuilt by every import (who wrote it, when, from which file): never carried over from a bundle.
REBUILT = {"provenance"}
# Refused from every bundle, --trust or not (spec, import): text a file could put in front of the agent.
REFUSED = {"task_state"}


def _build_graph(cli: Cli) -> None:
    cli.ok("remember", "--name", "auth-v1", "--type", "decision", "--obs", "JWT everywhere", "--tags", "project:shop")
    cli.ok(
        "remember", "--name", "auth-v2", "--type", "decision", "--title", "Sessions, not JWT",
        "--obs", "Server sessions", "revocable", "--tags", "project:shop", "topic:auth", "--supersedes", "auth-v1",
    )  # fmt: skip
    cli.ok("remember", "--name", "no-jwt", "--type", "decision", "--obs", "JWT is out", "--contradicts", "auth-v2")
    cli.ok("remember", "Café notes: naïve UTF-8 — 日本語 stays as written", "--namespace", "team")
    cli.ok("remember", "--name", "pool", "--type", "pattern", "--obs", "size 10", "--namespace", "global")
    cli.ok("remember", "--name", "pool", "--obs", "size 20", "--replace")  # a version in replaced_history
    cli.ok("pin", "--name", "pool")
    cli.ok("learn", "--error", "SIGSEGV in native module", "--fix", "use forks", "--project", "shop")
    cli.ok("task", "--project", "shop", "--goal", "Ship v2")
    cli.ok("remember", "--name", "dropped", "--type", "note", "--obs", "old")
    cli.ok("forget", "--name", "dropped")


def _comparable(bundle: dict[str, Any]) -> dict[str, Any]:
    entities = {}
    for exported in bundle["entities"]:
        entity = dict(exported)
        entity["metadata"] = {k: v for k, v in entity.get("metadata", {}).items() if k not in REBUILT | REFUSED}
        entity["relations"] = sorted(entity["relations"], key=lambda r: (r["to"], r["type"]))
        entities[entity["name"]] = entity
    return entities


def test_a_full_export_restored_with_trust_into_a_fresh_database_reproduces_every_memory(
    cli: Cli, memesh_env: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, backend: Backend
) -> None:
    _build_graph(cli)
    backup = tmp_path / "backup.json"
    cli.ok("export", "--limit", "100000", "-o", str(backup))
    before = _comparable(cli.ok("export", "--limit", "100000").json())
    # What the graph holds that a careless restore would lose.
    assert before["pool"]["metadata"]["pin"] is True
    assert len(before["pool"]["metadata"]["replaced_history"]) == 1
    assert before["dropped"]["status"] == "archived"
    assert before["auth-v1"]["status"] == "archived"
    assert before["auth-v2"]["title"] == "Sessions, not JWT"
    assert before["no-jwt"]["relations"] == [{"to": "auth-v2", "type": "contradicts"}]

    monkeypatch.setenv("MEMESH_DB_PATH", str(tmp_path / "fresh.db"))
    backend.use(monkeypatch, tmp_path / "fresh.db")  # on PostgreSQL, a second database
    assert cli.ok("export").json()["entities"] == []
    out = cli.ok("import", str(backup), "--trust", "--yes")
    assert out.out.splitlines() == [f"Imported: {len(before)}, Skipped: 0, Appended: 0"]
    assert out.err == ""
    restored = cli.ok("export", "--limit", "100000").json()
    after = _comparable(restored)

    assert [e["name"] for e in restored["entities"] if REFUSED & set(e["metadata"])] == []
    assert set(after) == set(before)
    diffs = {name: (after[name], entity) for name, entity in before.items() if after[name] != entity}
    assert diffs == {}


def test_a_plain_restore_differs_only_in_trust(
    cli: Cli, memesh_env: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, backend: Backend
) -> None:
    _build_graph(cli)
    backup = tmp_path / "backup.json"
    cli.ok("export", "--limit", "100000", "-o", str(backup))
    before = _comparable(cli.ok("export", "--limit", "100000").json())

    monkeypatch.setenv("MEMESH_DB_PATH", str(tmp_path / "fresh.db"))
    backend.use(monkeypatch, tmp_path / "fresh.db")  # on PostgreSQL, a second database
    cli.ok("import", str(backup))
    after = _comparable(cli.ok("export", "--limit", "100000").json())
    for entity in after.values():
        assert entity["metadata"].pop("trust") == "untrusted"
    for entity in before.values():
        entity["metadata"].pop("trust", None)
    assert after == before


def test_importing_the_same_backup_again_changes_nothing(
    cli: Cli, memesh_env: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, backend: Backend
) -> None:
    _build_graph(cli)
    backup = tmp_path / "backup.json"
    cli.ok("export", "--limit", "100000", "-o", str(backup))
    monkeypatch.setenv("MEMESH_DB_PATH", str(tmp_path / "fresh.db"))
    backend.use(monkeypatch, tmp_path / "fresh.db")  # on PostgreSQL, a second database
    cli.ok("import", str(backup), "--trust", "--yes")
    first = cli.ok("export", "--limit", "100000").json()["entities"]
    again = cli.ok("import", str(backup), "--trust", "--yes")
    assert again.out.splitlines()[0] == f"Imported: 0, Skipped: {len(first)}, Appended: 0"
    assert cli.ok("export", "--limit", "100000").json()["entities"] == first


def test_a_full_export_imported_into_the_other_engine_with_database_reproduces_every_memory(
    cli: Cli, memesh_env: Path, tmp_path: Path, backend: Backend
) -> None:
    from tests.backends import cluster

    _build_graph(cli)
    backup = tmp_path / "backup.json"
    cli.ok("export", "--limit", "100000", "-o", str(backup))
    before = _comparable(cli.ok("export", "--limit", "100000").json())
    configured = {name: os.environ.get(name) for name in ("MEMESH_DATABASE_URL", "MEMESH_DB_PATH")}
    other = str(tmp_path / "other.db") if backend.postgres else cluster().new_database()

    out = cli.ok("import", str(backup), "--trust", "--yes", "--database", other)
    assert out.out.splitlines() == [f"Imported: {len(before)}, Skipped: 0, Appended: 0"]
    after = _comparable(cli.ok("export", "--limit", "100000", "--database", other).json())

    assert after == before
    assert {name: os.environ.get(name) for name in configured} == configured  # the option lasts one command
    assert _comparable(cli.ok("export", "--limit", "100000").json()) == before  # the configured one is untouched
