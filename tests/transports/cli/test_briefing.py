"""memesh briefing: the block as text, --json the tool's output, --index the index alone whatever the level."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from tests.transports.cli.conftest import Cli

PROJECT = "shop~" + "1" * 32


@pytest.fixture(autouse=True)
def _no_level_from_outside(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("MEMESH_BRIEFING", raising=False)


def test_an_empty_project_at_minimal_prints_the_nothing_line_and_exits_0(cli: Cli) -> None:
    out = cli.ok("briefing", "--project", PROJECT)
    assert out.out.strip() == "Nothing to brief at level minimal — no project memories yet."


def test_the_block_is_printed_fenced(cli: Cli) -> None:
    cli.ok("remember", "--name", "use-wal", "--type", "decision", "--obs", "WAL", "--tags", f"project:{PROJECT}")
    text = cli.ok("briefing", "--project", PROJECT).out
    assert text.startswith("MeMesh reference memory.") and "## Decisions — shop" in text
    assert "- [decision] use-wal — WAL [mem:1]" in text


def test_json_is_the_tool_output(cli: Cli) -> None:
    out = cli.ok("briefing", "--project", PROJECT, "--json").json()
    assert out["level"] == "minimal" and out["empty"] is True and out["text"] == ""


def test_index_prints_the_index_at_any_level(cli: Cli) -> None:
    cli.ok("remember", "--name", "use-wal", "--type", "decision", "--obs", "WAL", "--tags", f"project:{PROJECT}")
    lines = cli.ok("briefing", "--project", PROJECT, "--index").out.splitlines()
    assert lines[0] == 'Index of durable memories for "shop" (newest first):'
    assert lines[-1].startswith("(index cost: 1 line,")
    assert cli.ok("briefing", "--project", PROJECT, "--index", "--json").json()["ids"] == [1]


def test_a_path_shaped_recipient_exits_1(cli: Cli) -> None:
    out = cli("briefing", "--recipient", "/root")
    assert out.code == 1 and "recipient" in out.err
