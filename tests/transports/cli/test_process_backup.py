"""Backup and restore as real processes: files, the --trust gate at a (pseudo-)terminal and without one."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from tests.transports.cli.conftest import Process


def _backup(memesh_process: Process, tmp_path: Path) -> Path:
    for name in ("a", "b"):
        assert memesh_process("remember", "--name", name, "--type", "note", "--obs", f"about {name}").code == 0
    backup = tmp_path / "backup.json"
    exported = memesh_process("export", "--limit", "100000", "-o", str(backup))
    assert exported.code == 0, exported.err
    assert exported.err == f"✅ Exported 2 entities to {backup}\n"
    return backup


def _fresh(memesh_process: Process, tmp_path: Path) -> None:
    memesh_process.use_database(tmp_path / "fresh.db")


def _trust(memesh_process: Process) -> dict[str, str]:
    bundle = json.loads(memesh_process("export").out)
    return {e["name"]: e["metadata"]["trust"] for e in bundle["entities"]}


def test_export_to_stdout_then_import_into_a_fresh_database(memesh_process: Process, tmp_path: Path) -> None:
    _backup(memesh_process, tmp_path)
    piped = memesh_process("export")
    assert piped.code == 0
    backup = tmp_path / "piped.json"
    backup.write_text(piped.out, encoding="utf-8")
    _fresh(memesh_process, tmp_path)
    restored = memesh_process("import", str(backup), stdin="")
    assert restored.code == 0, restored.err
    assert restored.out.splitlines()[0] == "Imported: 2, Skipped: 0, Appended: 0"
    assert _trust(memesh_process) == {"a": "untrusted", "b": "untrusted"}


@pytest.mark.one_engine("the --trust prompt; the import itself runs on both in the round trip and --yes tests")
def test_trust_without_a_terminal_and_without_yes_is_refused_and_writes_nothing(
    memesh_process: Process, tmp_path: Path
) -> None:
    backup = _backup(memesh_process, tmp_path)
    _fresh(memesh_process, tmp_path)
    refused = memesh_process("import", str(backup), "--trust", stdin="y\n")
    assert refused.code == 1
    assert refused.out == ""
    assert refused.err == (
        "Not a terminal and --yes not given — nothing was changed. Re-run with: "
        f"memesh import {backup} --merge skip --trust --yes\n"
    )
    assert json.loads(memesh_process("export").out)["entities"] == []


@pytest.mark.one_engine("the --trust prompt; the import itself runs on both in the round trip and --yes tests")
def test_trust_answered_yes_at_a_terminal_restores_trusted(memesh_process: Process, tmp_path: Path) -> None:
    backup = _backup(memesh_process, tmp_path)
    _fresh(memesh_process, tmp_path)
    out = memesh_process.at_terminal("import", str(backup), "--trust", typed="y\n")
    assert out.code == 0, out.err
    assert out.err.startswith("Trust the 2 memories in ")
    assert out.err.endswith("[y/N] ")
    assert out.out.splitlines() == ["Imported: 2, Skipped: 0, Appended: 0"]
    assert _trust(memesh_process) == {"a": "trusted", "b": "trusted"}


@pytest.mark.one_engine("the --trust prompt; the import itself runs on both in the round trip and --yes tests")
def test_trust_answered_no_at_a_terminal_writes_nothing(memesh_process: Process, tmp_path: Path) -> None:
    backup = _backup(memesh_process, tmp_path)
    _fresh(memesh_process, tmp_path)
    out = memesh_process.at_terminal("import", str(backup), "--trust", "--json", typed="n\n")
    assert out.code == 1
    assert out.out == ""
    assert out.err.endswith("Not trusted — nothing was written.\n")
    assert json.loads(memesh_process("export").out)["entities"] == []


def test_trust_with_yes_needs_no_terminal(memesh_process: Process, tmp_path: Path) -> None:
    backup = _backup(memesh_process, tmp_path)
    _fresh(memesh_process, tmp_path)
    out = memesh_process("import", str(backup), "--trust", "--yes", "--json", stdin="")
    assert out.code == 0, out.err
    assert json.loads(out.out)["imported"] == 2
    assert _trust(memesh_process) == {"a": "trusted", "b": "trusted"}


def test_config_and_reindex_run_as_processes(memesh_process: Process, tmp_path: Path) -> None:
    assert memesh_process("config", "set", "briefing", "standard").out == "✅ Set briefing = standard\n"
    listed = memesh_process("config", "list").out.splitlines()
    assert "  briefing: standard (config.json)" in listed
    unknown = memesh_process("config", "get", "colour")
    assert (unknown.code, unknown.err.splitlines()[0]) == (1, "Unknown key: colour")
    _backup(memesh_process, tmp_path)
    reindexed = memesh_process("reindex", "--fts")
    assert (reindexed.code, reindexed.out, reindexed.err) == (0, "Keyword index rebuilt (2 entities).\n", "")
