"""memesh setup: the hooks land in ~/.claude/settings.json once, other settings untouched, and run as installed."""

from __future__ import annotations

import json
import shlex
import subprocess
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tests.transports.cli.conftest import Process

SETTINGS = '{\n  "model": "opus",\n  "env": {"A": "1"}\n}\n'


def _settings(process: Process) -> Path:
    path = Path(process.env["HOME"]) / ".claude" / "settings.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    return path


def test_setup_installs_the_hooks_and_a_second_run_changes_nothing(memesh_process: Process) -> None:
    path = _settings(memesh_process)
    path.write_text(SETTINGS)
    first = memesh_process("setup", "--yes", "--json")
    assert first.code == 0, first.err
    assert json.loads(first.out)["changed"] is True
    text = path.read_text()
    assert text.startswith('{\n  "model": "opus",\n  "env": {"A": "1"},\n  "hooks": ')
    again = memesh_process("setup", "--yes", "--json")
    assert json.loads(again.out)["changed"] is False and path.read_text() == text
    config = json.loads((Path(memesh_process.env["MEMESH_DIR"]) / "config.json").read_text())
    assert config["setupCompleted"] is True


def test_uninstall_gives_the_original_file_back(memesh_process: Process) -> None:
    path = _settings(memesh_process)
    path.write_text(SETTINGS)
    memesh_process("setup", "--yes")
    assert memesh_process("setup", "--uninstall", "--yes").code == 0
    assert path.read_text() == SETTINGS


def test_without_a_terminal_or_yes_nothing_is_written(memesh_process: Process) -> None:
    path = _settings(memesh_process)
    path.write_text(SETTINGS)
    out = memesh_process("setup")
    assert out.code == 1 and "--yes" in out.err and path.read_text() == SETTINGS


def test_answering_no_at_the_terminal_writes_nothing(memesh_process: Process) -> None:
    path = _settings(memesh_process)
    path.write_text(SETTINGS)
    assert memesh_process.at_terminal("setup", typed="n\n").code == 1
    assert path.read_text() == SETTINGS
    assert memesh_process.at_terminal("setup", typed="y\n").code == 0
    assert "hooks" in json.loads(path.read_text())


def test_a_broken_settings_file_is_refused(memesh_process: Process) -> None:
    path = _settings(memesh_process)
    path.write_text("{oops")
    out = memesh_process("setup", "--yes")
    assert out.code == 1 and path.read_text() == "{oops"


def test_the_installed_session_start_command_runs_and_answers(memesh_process: Process) -> None:
    path = _settings(memesh_process)
    memesh_process("setup", "--yes")
    command = json.loads(path.read_text())["hooks"]["SessionStart"][0]["hooks"][0]["command"]
    memesh_process("remember", "--name", "use-wal", "--type", "decision", "--obs", "WAL",
                   "--tags", "project:" + _project(memesh_process))  # fmt: skip
    done = subprocess.run(
        shlex.split(command),
        input=json.dumps({"session_id": "s", "cwd": str(memesh_process.cwd)}),
        capture_output=True,
        text=True,
        env=memesh_process.env,
        cwd=memesh_process.cwd,
        check=True,
    )
    assert "use-wal — WAL" in json.loads(done.stdout)["hookSpecificOutput"]["additionalContext"]


def _project(process: Process) -> str:
    from memesh.adapters.project_git import project_for

    return project_for(str(process.cwd))
