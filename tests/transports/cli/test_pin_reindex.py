"""memesh pin / unpin (exit 1 for a memory that does not exist) and memesh reindex --fts."""

from __future__ import annotations

import io
import sys
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from tests.transports.cli.conftest import Cli


def _metadata(cli: Cli) -> dict[str, object]:
    metadata: dict[str, object] = cli.ok("export").json()["entities"][0]["metadata"]
    return metadata


def test_pin_marks_the_memory_and_unpin_removes_the_mark(cli: Cli) -> None:
    cli.ok("remember", "--name", "auth", "--type", "decision", "--obs", "x")
    assert cli.ok("pin", "--name", "auth").out == '📌 Pinned "auth" — excluded from digest work packages\n'
    assert _metadata(cli)["pin"] is True
    assert cli.ok("unpin", "--name", "auth").out == '📍 Unpinned "auth"\n'
    assert "pin" not in _metadata(cli)


def test_pin_json_is_name_pinned_found(cli: Cli) -> None:
    cli.ok("remember", "--name", "auth", "--type", "decision", "--obs", "x")
    assert cli.ok("pin", "--name", "auth", "--json").json() == {"name": "auth", "pinned": True, "found": True}
    assert cli.ok("unpin", "--name", "auth", "--json").json() == {"name": "auth", "pinned": False, "found": True}


@pytest.mark.parametrize("command", ["pin", "unpin"])
def test_a_missing_memory_exits_1_and_claims_no_pin_state(cli: Cli, command: str) -> None:
    human = cli(command, "--name", "ghost")
    assert human.code == 1
    assert human.err == 'Error: Entity "ghost" not found\n'
    body = cli(command, "--name", "ghost", "--json")
    assert body.code == 1
    assert body.json() == {"name": "ghost", "pinned": None, "found": False}
    assert body.err == 'Error: Entity "ghost" not found\n'


def test_pin_needs_a_name(cli: Cli) -> None:
    assert cli("pin").code == 2


def test_reindex_rebuilds_the_keyword_index_and_says_how_many(cli: Cli) -> None:
    cli.ok("remember", "--name", "a", "--type", "t", "--obs", "kubernetes rollout")
    cli.ok("remember", "--name", "b", "--type", "t", "--obs", "postgres vacuum")
    out = cli.ok("reindex", "--fts")
    assert out.out == "Keyword index rebuilt (2 entities).\n"
    assert out.err == ""  # stderr is not a terminal here: no progress bar
    assert [e["name"] for e in cli.ok("recall", "kubernetes", "--json").json()["entities"]] == ["a"]
    assert cli.ok("reindex", "--fts", "--json").json() == {"entities": 2}


def test_reindex_without_fts_is_a_usage_error(cli: Cli) -> None:
    out = cli("reindex")
    assert out.code == 2
    assert "--fts" in out.err


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_a_terminal_sees_the_progress_line_on_stderr_erased_before_the_answer(
    cli: Cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    cli.ok("remember", "--name", "a", "--type", "t", "--obs", "x")
    terminal = Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    assert cli.ok("reindex", "--fts").out == "Keyword index rebuilt (1 entities).\n"
    # The same progress line as import and backup: counted, then erased so the answer stands alone.
    assert terminal.getvalue() == "\r\x1b[KReindexing: 1/1 (100%)\r\x1b[K"


def test_a_pipe_sees_no_progress_line(cli: Cli, monkeypatch: pytest.MonkeyPatch) -> None:
    cli.ok("remember", "--name", "a", "--type", "t", "--obs", "x")
    piped = io.StringIO()
    monkeypatch.setattr(sys, "stderr", piped)
    assert cli.ok("reindex", "--fts").out == "Keyword index rebuilt (1 entities).\n"
    assert piped.getvalue() == ""
