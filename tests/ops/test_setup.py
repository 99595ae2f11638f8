"""setup over a settings file it is handed: a change is only planned until the person agrees (`write`), the other
settings stay byte for byte, and a file it cannot read is refused and left alone."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memesh.adapters import host_config_files
from memesh.context import CallContext
from memesh.core.plugin_cache import Installed
from memesh.errors import ErrorCode
from memesh.ops.setup import setup

SETTINGS = '{\n  "model": "opus"\n}\n'


@dataclass
class SettingsFile:
    text: str = ""
    writes: int = 0

    def settings_path(self) -> Path:
        return Path("/home/someone/.claude/settings.json")

    def read_text(self, path: Path) -> str:
        return self.text

    def write_text(self, path: Path, text: str) -> None:
        self.text, self.writes = text, self.writes + 1


@dataclass
class Config:
    stored: dict[str, Any] = field(default_factory=dict)

    def update(self, changes: dict[str, Any], removals: tuple[str, ...] = ()) -> dict[str, Any]:
        self.stored.update(changes)
        return self.stored


@dataclass
class Uses:
    claude_settings: SettingsFile
    config_file: Any = field(default_factory=Config)
    hook: str | None = "/venv/bin/memesh-hook"
    installs: list[Installed] = field(default_factory=list)
    host_files: Any = host_config_files  # Copilot CLI's and Cursor's files: not reached by these Claude Code calls

    def entry_point(self, name: str) -> str | None:
        return self.hook if name == "memesh-hook" else "/venv/bin/memesh-mcp"

    def plugin_caches(self) -> list[Installed]:
        return self.installs

    def data_folder(self) -> Path:
        return Path("/home/someone/.memesh")


def test_without_write_a_change_is_planned_and_nothing_is_written(ctx: CallContext) -> None:
    uses = Uses(SettingsFile(SETTINGS))
    planned = setup(uses, {}, ctx=ctx).unwrap()
    assert (planned["changed"], planned["written"]) == (True, False)
    assert "SessionStart" in planned["events"]
    assert (uses.claude_settings.text, uses.claude_settings.writes, uses.config_file.stored) == (SETTINGS, 0, {})


def test_with_write_the_hooks_are_installed_once_and_setup_is_recorded(ctx: CallContext) -> None:
    uses = Uses(SettingsFile(SETTINGS))
    done = setup(uses, {"write": True}, ctx=ctx).unwrap()
    assert (done["changed"], done["written"], done["mcpServer"]) == (True, True, "/venv/bin/memesh-mcp")
    assert json.loads(uses.claude_settings.text)["model"] == "opus"
    assert uses.config_file.stored == {"setupCompleted": True}
    again = setup(uses, {}, ctx=ctx).unwrap()  # nothing left to change: no agreement needed
    assert (again["changed"], again["written"], uses.claude_settings.writes) == (False, False, 1)


def test_uninstall_gives_the_original_text_back_and_records_nothing(ctx: CallContext) -> None:
    uses = Uses(SettingsFile(SETTINGS))
    setup(uses, {"write": True}, ctx=ctx).unwrap()
    uses.config_file.stored.clear()
    done = setup(uses, {"uninstall": True, "write": True}, ctx=ctx).unwrap()
    assert (done["uninstalled"], done["events"], uses.claude_settings.text) == (True, [], SETTINGS)
    assert uses.config_file.stored == {}


def test_a_missing_hook_command_or_a_broken_file_is_refused_and_nothing_is_written(ctx: CallContext) -> None:
    missing = Uses(SettingsFile(SETTINGS), hook=None)
    assert "memesh-hook is not installed" in setup(missing, {"write": True}, ctx=ctx).failure().message
    broken = Uses(SettingsFile("{oops"))
    refused = setup(broken, {"write": True}, ctx=ctx).failure()
    assert refused.code is ErrorCode.OPERATION_FAILED and refused.message.startswith("Refusing to modify ")
    assert (broken.claude_settings.text, broken.claude_settings.writes) == ("{oops", 0)


def test_with_the_plugin_installed_setup_adds_no_hooks_and_removes_those_an_earlier_setup_added(
    ctx: CallContext,
) -> None:
    uses = Uses(SettingsFile(SETTINGS))
    setup(uses, {"write": True}, ctx=ctx).unwrap()  # before the plugin: setup's own hooks
    uses.installs = [Installed("codex", "memesh", "0.1.0"), Installed("claude-code", "memesh", "0.1.0")]
    planned = setup(uses, {}, ctx=ctx).unwrap()
    assert (planned["plugin"], planned["changed"], planned["written"], planned["events"]) == (
        "memesh@memesh",
        True,
        False,
        [],
    )
    done = setup(uses, {"write": True}, ctx=ctx).unwrap()
    assert (done["written"], uses.claude_settings.text) == (True, SETTINGS)  # every other byte as it was
    again = setup(uses, {"write": True}, ctx=ctx).unwrap()
    assert (again["changed"], again["plugin"], again["dataFolder"]) == (False, "memesh@memesh", "/home/someone/.memesh")


def test_the_plugin_alone_needs_no_memesh_hook_beside_this_memesh(ctx: CallContext) -> None:
    uses = Uses(SettingsFile(SETTINGS), hook=None, installs=[Installed("claude-code", "memesh", "0.1.0")])
    done = setup(uses, {"write": True}, ctx=ctx).unwrap()
    assert (done["changed"], done["events"], done["plugin"]) == (False, [], "memesh@memesh")


def test_a_plugin_turned_off_in_settings_runs_no_hooks_so_setup_installs_them(ctx: CallContext) -> None:
    text = '{\n  "enabledPlugins": {"memesh@memesh": false}\n}\n'
    uses = Uses(SettingsFile(text), installs=[Installed("claude-code", "memesh", "0.1.0")])
    done = setup(uses, {"write": True}, ctx=ctx).unwrap()
    assert "plugin" not in done and done["written"] is True and "SessionStart" in done["events"]
