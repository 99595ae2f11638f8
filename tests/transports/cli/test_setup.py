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


def _install_plugin(process: Process) -> None:
    """Claude Code's record of an installed MeMesh plugin, as `claude plugin install memesh@memesh` leaves it."""
    plugins = Path(process.env["HOME"]) / ".claude" / "plugins"
    plugins.mkdir(parents=True, exist_ok=True)
    record = {"plugins": {"memesh@memesh": [{"scope": "user", "version": "0.1.0", "installPath": str(plugins)}]}}
    (plugins / "installed_plugins.json").write_text(json.dumps(record))


def _hook_check(process: Process) -> dict[str, str]:
    checks = json.loads(process("doctor", "--json").out)["checks"]
    return next(check for check in checks if check["id"] == "hooks")


def test_with_the_plugin_installed_setup_adds_no_hooks_and_removes_an_earlier_setups(memesh_process: Process) -> None:
    path = _settings(memesh_process)
    path.write_text(SETTINGS)
    assert memesh_process("setup", "--yes").code == 0  # before the plugin
    _install_plugin(memesh_process)
    doubled = _hook_check(memesh_process)
    assert doubled["status"] == "warn" and doubled["detail"].startswith("duplicate hooks: the MeMesh plugin")
    done = memesh_process("setup", "--yes")
    assert done.code == 0, done.err
    assert "The MeMesh plugin (memesh@memesh) is installed in Claude Code" in done.out
    assert "removed the hooks an earlier setup added" in done.out
    assert path.read_text() == SETTINGS
    again = memesh_process("setup", "--yes", "--json")
    assert (json.loads(again.out)["changed"], json.loads(again.out)["plugin"]) == (False, "memesh@memesh")
    assert path.read_text() == SETTINGS
    found = _hook_check(memesh_process)
    assert (found["status"], found["detail"]) == (
        "pass",
        "the MeMesh plugin (memesh@memesh) runs the hooks in Claude Code",
    )


def test_doctor_finds_the_hooks_setup_installed_and_warns_about_an_entry_there_twice(memesh_process: Process) -> None:
    path = _settings(memesh_process)
    path.write_text(SETTINGS)
    assert memesh_process("setup", "--yes").code == 0
    assert _hook_check(memesh_process)["detail"] == "all hooks installed in Claude Code's settings.json"
    settings = json.loads(path.read_text())
    settings["hooks"]["SessionStart"].append(settings["hooks"]["SessionStart"][0])  # pasted in a second time
    path.write_text(json.dumps(settings))
    twice = _hook_check(memesh_process)
    assert twice["status"] == "warn" and "session-start run more than once" in twice["detail"]


def test_uninstall_says_what_stays_and_how_to_remove_it(memesh_process: Process) -> None:
    path = _settings(memesh_process)
    path.write_text(SETTINGS)
    memesh_process("setup", "--yes")
    done = memesh_process("setup", "--uninstall", "--yes")
    assert done.code == 0 and path.read_text() == SETTINGS
    assert f"in {memesh_process.env['MEMESH_DIR']} (delete that folder to remove them;" in done.out
    assert "claude mcp remove memesh" in done.out and "pipx uninstall memesh" in done.out


def test_a_plugin_turned_off_in_settings_is_not_where_doctor_says_the_hooks_come_from(memesh_process: Process) -> None:
    path = _settings(memesh_process)
    path.write_text('{"enabledPlugins": {"memesh@memesh": false}}\n')
    _install_plugin(memesh_process)
    assert memesh_process("setup", "--yes").code == 0
    assert '"memesh-hook' in path.read_text() or "memesh-hook " in path.read_text()
    assert _hook_check(memesh_process)["detail"] == "all hooks installed in Claude Code's settings.json"
