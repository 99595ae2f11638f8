"""Finding the plugin in each host's cache on disk, in the layouts the hosts write."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memesh.adapters.plugin_cache import discover
from memesh.core.plugin_cache import Installed


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("HOME", str(tmp_path))
    for variable in ("CLAUDE_CONFIG_DIR", "CODEX_HOME"):
        monkeypatch.delenv(variable, raising=False)
    return tmp_path


def _copy(root: Path, marketplace: str, folder: str, manifest: str, version: str) -> Path:
    copy = root / "plugins" / "cache" / marketplace / "memesh" / folder
    (copy / manifest).mkdir(parents=True)
    (copy / manifest / "plugin.json").write_text(json.dumps({"version": version}))
    return copy


def test_no_host_has_the_plugin_means_nothing_found(home: Path) -> None:
    assert discover() == []


def test_the_claude_registry_names_the_marketplace_and_the_oldest_scope_wins(home: Path) -> None:
    root = home / ".claude"
    user = _copy(root, "mp", "0.1.0", ".claude-plugin", "0.1.0")
    project = _copy(root, "mp", "0.0.5", ".claude-plugin", "0.0.5")
    entries = [{"scope": "user", "installPath": str(user), "version": "0.1.0"},
               {"scope": "project", "installPath": str(project)}]  # fmt: skip
    (root / "plugins" / "installed_plugins.json").write_text(json.dumps({"plugins": {"memesh@mp": entries}}))
    assert discover() == [Installed("claude-code", "mp", "0.0.5")]


def test_an_older_registry_with_one_object_per_plugin_is_read_too(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = home / "claude-config"
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(root))
    (root / "plugins").mkdir(parents=True)
    registry = {"version": 1, "plugins": {"memesh@memesh": {"version": "0.0.7", "installPath": "/gone"}}}
    (root / "plugins" / "installed_plugins.json").write_text(json.dumps(registry))
    assert discover() == [Installed("claude-code", "memesh", "0.0.7")]


def test_without_a_registry_the_newest_cached_copy_is_read(home: Path) -> None:
    root = home / ".claude"
    _copy(root, "memesh", "0.0.9", ".claude-plugin", "0.0.9")
    _copy(root, "memesh", "0.0.10", ".claude-plugin", "0.0.10")
    assert discover() == [Installed("claude-code", "memesh", "0.0.10")]


def test_codex_reads_its_cache_and_a_folder_that_is_not_a_version_by_its_manifest(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = home / "codex-home"
    monkeypatch.setenv("CODEX_HOME", str(root))
    _copy(root, "local", "current", ".codex-plugin", "0.0.3")
    assert discover() == [Installed("codex", "local", "0.0.3")]
