"""Installing the hooks into settings.json: idempotent, reversible, every other byte kept."""

from __future__ import annotations

import json

import pytest

from memesh.core import claude_settings as cs

HOOK = "/opt/memesh/bin/memesh-hook"
USER_FILE = (
    '{\n    "model": "opus",\n    "permissions": {"allow": ["Bash(ls:*)"]},\n'
    '  "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "say done"}]}]}\n}\n'
)


def test_install_adds_every_event_and_keeps_other_settings_byte_for_byte() -> None:
    edit = cs.install(USER_FILE, HOOK)
    assert edit.changed
    assert edit.text.startswith('{\n    "model": "opus",\n    "permissions": {"allow": ["Bash(ls:*)"]},\n  "hooks": ')
    hooks = json.loads(edit.text)["hooks"]
    assert set(hooks) == {"SessionStart", "UserPromptSubmit", "Stop", "PreCompact", "PostToolUse", "PreToolUse"}
    assert hooks["Stop"][0]["hooks"][0]["command"] == "say done"  # the user's own hook stays, first
    assert hooks["Stop"][1]["hooks"][0]["command"] == f"{HOOK} stop"
    assert hooks["PostToolUse"][0]["matcher"] == "Bash"


def test_installing_twice_changes_nothing() -> None:
    once = cs.install(USER_FILE, HOOK).text
    again = cs.install(once, HOOK)
    assert not again.changed and again.text == once


def test_a_newer_path_replaces_the_old_entries() -> None:
    moved = cs.install(cs.install(USER_FILE, HOOK).text, "/new/bin/memesh-hook").text
    commands = [e["command"] for g in json.loads(moved)["hooks"]["Stop"] for e in g["hooks"]]
    assert commands == ["say done", "/new/bin/memesh-hook stop", "/new/bin/memesh-hook stop-gate"]


def test_uninstall_restores_the_file_exactly() -> None:
    assert cs.uninstall(cs.install(USER_FILE, HOOK).text).text == USER_FILE.replace(
        '{"Stop": [{"hooks": [{"type": "command", "command": "say done"}]}]}',
        json.dumps({"Stop": [{"hooks": [{"type": "command", "command": "say done"}]}]}, indent=2).replace("\n", "\n  "),
    )
    plain = '{\n  "model": "opus"\n}\n'
    assert cs.uninstall(cs.install(plain, HOOK).text).text == plain


def test_an_empty_or_missing_file_gets_a_settings_object() -> None:
    assert set(json.loads(cs.install("", HOOK).text)) == {"hooks"}
    assert not cs.uninstall("").changed


def test_a_path_with_spaces_is_quoted() -> None:
    text = cs.install("{}", "/Users/a b/bin/memesh-hook").text
    assert json.loads(text)["hooks"]["Stop"][0]["hooks"][0]["command"] == '"/Users/a b/bin/memesh-hook" stop'
    assert cs.installed_events(text) and not cs.install(text, "/Users/a b/bin/memesh-hook").changed


@pytest.mark.parametrize("bad", ["[]", "{not json", '{"hooks": []}', '{"a": 1} trailing'])
def test_a_file_that_is_not_a_settings_object_is_refused(bad: str) -> None:
    with pytest.raises(cs.SettingsError):
        cs.install(bad, HOOK)
