"""Who a local write is recorded as (issue 32), as a person types it: `--author` on remember, learn, task and import
overrides MEMESH_AUTHOR for that one call, held to the setting's rule; `memesh import` keeps the author a bundle
names and stamps the importing person on what names none. The installed script, on both engines."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memesh.core.authors import AUTHOR_MAX, author_problem, shown_author
from tests.transports.cli.conftest import Process

LOCAL = "al@example.com"


@pytest.fixture
def memesh(memesh_process: Process) -> Process:
    memesh_process.env["MEMESH_AUTHOR"] = LOCAL
    return memesh_process


def provenance(memesh: Process, name: str) -> dict[str, Any]:
    found = memesh("recall", name, "--json", "--include-archived")
    assert found.code == 0, found.err
    [entity] = [e for e in found.json()["entities"] if e["name"] == name]
    stated: dict[str, Any] = entity["metadata"]["provenance"]
    return stated


def test_author_flag_records_that_person_for_the_one_call(memesh: Process) -> None:
    done = memesh("remember", "--name", "by-bea", "--type", "decision", "--obs", "x", "--author", "  bea  ")
    assert done.code == 0, done.err
    assert memesh("remember", "--name", "by-default", "--type", "note", "--obs", "y").code == 0
    assert provenance(memesh, "by-bea")["author"] == "bea"
    assert provenance(memesh, "by-default")["author"] == LOCAL


def test_learn_and_task_take_the_author_flag_too(memesh: Process) -> None:
    learned = memesh("learn", "--error", "cache stale", "--fix", "purge", "--project", "web", "--author", "carl",
                     "--json")  # fmt: skip
    assert learned.code == 0, learned.err
    assert provenance(memesh, learned.json()["name"])["author"] == "carl"
    stated = memesh("task", "--project", "web", "--goal", "ship", "--author", "dana", "--json")
    assert stated.code == 0, stated.err
    assert provenance(memesh, "task-state:web")["author"] == "dana"


@pytest.mark.parametrize("typed", ["", "   ", "\t\n", "x" * (AUTHOR_MAX + 1)])
def test_an_author_that_names_no_one_is_refused_before_anything_is_written(memesh: Process, typed: str) -> None:
    done = memesh("remember", "--name", "nothing", "--type", "note", "--obs", "x", "--author", typed)
    assert done.code == 2
    assert "--author" in done.err
    assert memesh("recall", "nothing", "--json").json()["entities"] == []


def bundle(*entries: dict[str, Any]) -> str:
    return json.dumps({"version": 1, "exported_at": "2026-01-01T00:00:00Z", "entities": list(entries)})


def test_import_keeps_the_bundles_author_and_stamps_the_importer_on_the_rest(memesh: Process, tmp_path: Path) -> None:
    file = tmp_path / "bundle.json"
    file.write_text(
        bundle(
            {
                "name": "from-bea",
                "type": "decision",
                "observations": ["a"],
                "metadata": {"provenance": {"author": "bea\n", "source": "local"}},
            },
            {"name": "unattributed", "type": "note", "observations": ["b"]},
        )
    )
    done = memesh("import", str(file), "--json")
    assert done.code == 0, done.err
    assert provenance(memesh, "from-bea")["author"] == "bea"
    assert provenance(memesh, "unattributed")["author"] == LOCAL
    other = tmp_path / "other.json"
    other.write_text(bundle({"name": "carls", "type": "note", "observations": ["c"]}))
    assert memesh("import", str(other), "--author", "carl", "--json").code == 0
    assert provenance(memesh, "carls")["author"] == "carl"


def test_import_of_an_mcp_memory_file_stamps_the_importer(memesh: Process, tmp_path: Path) -> None:
    jsonl = tmp_path / "memory.jsonl"
    jsonl.write_text(json.dumps({"type": "entity", "name": "graph-fact", "entityType": "fact",
                                 "observations": ["from the MCP memory server"]}) + "\n")  # fmt: skip
    done = memesh("import", str(jsonl), "--author", "eve", "--json")
    assert done.code == 0, done.err
    assert provenance(memesh, "graph-fact")["author"] == "eve"


@settings(max_examples=200, suppress_health_check=list(HealthCheck))
@given(st.text(max_size=300))
def test_an_accepted_author_is_one_printable_line_within_the_limit(typed: str) -> None:
    shown = shown_author(typed)
    if author_problem(typed) is None:
        assert shown is not None
    if shown is not None:
        assert shown == shown.strip() and len(shown) <= AUTHOR_MAX
        assert all(ch.isprintable() for ch in shown) and "\n" not in shown
