"""memesh import --trust: only for the owner's own backup, behind a [y/N] prompt, refused without a terminal."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from tests.transports.cli.conftest import Cli

PROMPT = (
    "Trust the {count} in {file}? They will be injected into new sessions like your own. Only do this for your own "
    "backup. [y/N] "
)


class Keyboard(io.StringIO):
    """stdin as a terminal where the answer is already typed."""

    def isatty(self) -> bool:
        return True


class Pipe(io.StringIO):
    def isatty(self) -> bool:
        return False


@pytest.fixture
def backup(tmp_path: Path) -> Path:
    path = tmp_path / "backup.json"
    entities = [{"name": name, "type": "note", "observations": [name]} for name in ("a", "b")]
    path.write_text(json.dumps({"version": "3.1.0", "entities": entities}), encoding="utf-8")
    return path


def _trust(cli: Cli) -> dict[str, Any]:
    return {e["name"]: e["metadata"]["trust"] for e in cli.ok("export").json()["entities"]}


def _type(monkeypatch: pytest.MonkeyPatch, answer: str) -> None:
    monkeypatch.setattr(sys, "stdin", Keyboard(answer))


@pytest.mark.parametrize("answer", ["y\n", "yes\n", "Y\n", " YES \n"])
def test_yes_at_the_prompt_imports_the_rows_as_trusted(
    cli: Cli, backup: Path, monkeypatch: pytest.MonkeyPatch, answer: str
) -> None:
    _type(monkeypatch, answer)
    out = cli.ok("import", str(backup), "--trust")
    assert out.err == PROMPT.format(count="2 memories", file=backup)
    assert out.out.splitlines() == ["Imported: 2, Skipped: 0, Appended: 0"]
    assert _trust(cli) == {"a": "trusted", "b": "trusted"}


@pytest.mark.parametrize("answer", ["n\n", "\n", "", "sure\n"])
def test_any_other_answer_writes_nothing_and_exits_1(
    cli: Cli, backup: Path, monkeypatch: pytest.MonkeyPatch, answer: str
) -> None:
    _type(monkeypatch, answer)
    out = cli("import", str(backup), "--trust")
    assert out.code == 1
    assert out.out == ""
    assert out.err.endswith("[y/N] Not trusted — nothing was written.\n")
    assert cli.ok("export").json()["entities"] == []


def test_the_prompt_counts_one_memory(cli: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    one = tmp_path / "one.json"
    one.write_text(json.dumps({"entities": [{"name": "a", "type": "note"}]}), encoding="utf-8")
    _type(monkeypatch, "y\n")
    assert cli.ok("import", str(one), "--trust").err == PROMPT.format(count="1 memory", file=one)


def test_without_a_terminal_trust_is_refused_with_the_command_to_rerun(
    cli: Cli, backup: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "stdin", Pipe("y\n"))
    out = cli("import", str(backup), "--trust", "--merge", "append", "--namespace", "team")
    assert out.code == 1
    assert out.err == (
        "Not a terminal and --yes not given — nothing was changed. Re-run with: "
        f"memesh import {backup} --merge append --namespace team --trust --yes\n"
    )
    assert cli.ok("export").json()["entities"] == []


def test_without_a_terminal_trust_under_json_prints_the_failure_body_on_stdout(
    cli: Cli, backup: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "stdin", Pipe("y\n"))
    out = cli("import", str(backup), "--trust", "--json")
    assert out.code == 1
    assert out.json()["errorCode"] == "operation.failed"
    assert out.json()["error"].startswith("Not a terminal and --yes not given")
    assert cli.ok("export").json()["entities"] == []


def test_yes_skips_the_prompt(cli: Cli, backup: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "stdin", Pipe(""))
    out = cli.ok("import", str(backup), "--trust", "--yes")
    assert out.err == ""
    assert _trust(cli) == {"a": "trusted", "b": "trusted"}


def test_yes_without_trust_is_refused(cli: Cli, backup: Path) -> None:
    out = cli("import", str(backup), "--yes")
    assert (out.code, out.err) == (1, "Error: --yes only applies with --trust.\n")
    assert cli.ok("export").json()["entities"] == []


def test_a_trusted_overwrite_replaces_and_says_so(cli: Cli, backup: Path) -> None:
    cli.ok("remember", "--name", "a", "--type", "note", "--obs", "old")
    out = cli.ok("import", str(backup), "--trust", "--yes", "--merge", "overwrite")
    assert out.out.splitlines() == ["Imported: 2 (1 overwritten), Skipped: 0, Appended: 0"]


def test_a_trusted_append_leaves_appended_memories_their_own_trust(cli: Cli, backup: Path, tmp_path: Path) -> None:
    cli.ok("import", str(backup))  # both untrusted now
    more = tmp_path / "more.json"
    entities = [{"name": "a", "type": "note", "observations": ["new line"]}, {"name": "c", "type": "note"}]
    more.write_text(json.dumps({"entities": entities}), encoding="utf-8")
    out = cli.ok("import", str(more), "--trust", "--yes", "--merge", "append")
    assert out.out.splitlines() == [
        "Imported: 1, Skipped: 0, Appended: 1",
        "1 memory appended kept its own trust.",
    ]
    assert _trust(cli) == {"a": "untrusted", "b": "untrusted", "c": "trusted"}


def test_trust_is_refused_with_notes(cli: Cli, tmp_path: Path) -> None:
    out = cli("import", "--notes", str(tmp_path), "--trust", "--yes")
    assert out.code == 1
    assert out.err.startswith("Error: --trust applies only to a JSON export file")


def test_a_file_that_fails_to_read_is_reported_before_any_prompt(
    cli: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _type(monkeypatch, "y\n")
    out = cli("import", str(tmp_path / "missing.json"), "--trust")
    assert out.code == 1
    assert out.err.startswith("Error: file not found: ")
    assert "[y/N]" not in out.err
