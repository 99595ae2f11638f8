"""Doctor's plugin-cache checks: a host's cached copy of the plugin older than this package is a finding with a
host-specific id; POST /v1/doctor/fix refreshes it through that host's own updater (a fake `claude` / `codex` on
PATH here, recording its argv) and says the host must restart. GET never runs an updater."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path
from typing import Any

import pytest

import memesh

OLD = "0.0.9"


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("MEMESH_DIR", str(home / ".memesh"))
    for variable in ("CLAUDE_CONFIG_DIR", "CODEX_HOME"):
        monkeypatch.delenv(variable, raising=False)
    return home


@pytest.fixture
def updaters(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A `claude` and a `codex` first on PATH that append their argv as one JSON line to argv.log."""
    folder = tmp_path / "bin"
    folder.mkdir()
    log = tmp_path / "argv.log"
    for name in ("claude", "codex"):
        script = folder / name
        script.write_text(
            "#!/bin/sh\n"
            f'python3 -c \'import json, sys; print(json.dumps(sys.argv[1:]))\' "$(basename "$0")" "$@" >> "{log}"\n'
            'exit "${FAKE_UPDATER_STATUS:-0}"\n'
        )
        script.chmod(script.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("PATH", f"{folder}{os.pathsep}{os.environ['PATH']}")
    return log


def _calls(log: Path) -> list[list[str]]:
    return [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []


def _claude_cache(home: Path, version: str, marketplace: str = "memesh") -> Path:
    plugins = home / ".claude" / "plugins"
    copy = plugins / "cache" / marketplace / "memesh" / version
    (copy / ".claude-plugin").mkdir(parents=True)
    (copy / ".claude-plugin" / "plugin.json").write_text(json.dumps({"name": "memesh", "version": version}))
    entry = {"scope": "user", "installPath": str(copy), "version": version, "installedAt": "2026-11-01T00:00:00Z"}
    registry = {"version": 2, "plugins": {f"memesh@{marketplace}": [entry], "other@elsewhere": [{"version": "9.9.9"}]}}
    (plugins / "installed_plugins.json").write_text(json.dumps(registry))
    return copy


def _codex_cache(home: Path, version: str) -> Path:
    copy = home / ".codex" / "plugins" / "cache" / "memesh" / "memesh" / version
    (copy / ".codex-plugin").mkdir(parents=True)
    (copy / ".codex-plugin" / "plugin.json").write_text(json.dumps({"name": "memesh", "version": version}))
    return copy


def _check(data: dict[str, Any], check_id: str) -> dict[str, Any]:
    found: list[dict[str, Any]] = [c for c in data["checks"] if c["id"] == check_id]
    assert len(found) == 1
    return found[0]


def test_a_stale_claude_code_cache_is_a_fixable_finding_and_get_runs_nothing(
    api: Any, home: Path, updaters: Path
) -> None:
    _claude_cache(home, OLD)
    data = api.ok("GET", "/v1/doctor")
    check = _check(data, "plugin-cache-claude-code")
    assert check["status"] == "warn" and check["fixable"] is True
    assert OLD in check["detail"] and memesh.__version__ in check["detail"]
    assert "claude plugin update memesh@memesh" in check["detail"]
    assert str(home) not in json.dumps(data)
    assert data["status"] == "PASS_WITH_CONCERNS"
    assert _calls(updaters) == []  # reading doctor never refreshes anything


def test_the_fix_runs_the_hosts_updater_and_asks_for_a_restart(api: Any, home: Path, updaters: Path) -> None:
    _claude_cache(home, OLD, marketplace="team-tools")
    data = api.ok("POST", "/v1/doctor/fix", json={"id": "plugin-cache-claude-code"})
    assert _calls(updaters) == [
        ["claude", "plugin", "marketplace", "update", "team-tools"],
        ["claude", "plugin", "update", "memesh@team-tools"],
    ]
    assert data["restartRequired"] is True
    assert data["action"].startswith("refreshed the Claude Code plugin cache: claude plugin marketplace update")
    assert data["before"]["id"] == "plugin-cache-claude-code" and data["before"]["status"] == "warn"
    assert str(home) not in json.dumps(data)


def test_codex_is_its_own_check_and_refreshes_with_codex(api: Any, home: Path, updaters: Path) -> None:
    _codex_cache(home, OLD)
    _claude_cache(home, memesh.__version__)
    data = api.ok("GET", "/v1/doctor")
    assert _check(data, "plugin-cache-claude-code")["status"] == "pass"
    assert _check(data, "plugin-cache-codex")["status"] == "warn"
    api.fails("POST", "/v1/doctor/fix", 400, "operation.failed", json={"id": "plugin-cache-claude-code"})
    assert _calls(updaters) == []  # a current cache is not a finding: nothing ran
    fixed = api.ok("POST", "/v1/doctor/fix", json={"id": "plugin-cache-codex"})
    assert fixed["restartRequired"] is True
    assert _calls(updaters) == [
        ["codex", "plugin", "marketplace", "upgrade", "memesh"],
        ["codex", "plugin", "add", "memesh@memesh"],
    ]


def test_an_id_that_is_not_a_current_finding_is_refused_without_running_anything(
    api: Any, home: Path, updaters: Path
) -> None:
    for check_id in ("plugin-cache-claude-code", "plugin-cache-codex", "plugin-cache-vim"):
        api.fails("POST", "/v1/doctor/fix", 400, "operation.failed", json={"id": check_id})
    assert _calls(updaters) == []
    assert [c["id"] for c in api.ok("GET", "/v1/doctor")["checks"] if c["id"].startswith("plugin-cache")] == []


def test_a_failing_updater_is_reported_and_says_which_command(
    api: Any, home: Path, updaters: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _claude_cache(home, OLD)
    monkeypatch.setenv("FAKE_UPDATER_STATUS", "3")
    body = api.fails("POST", "/v1/doctor/fix", 400, "operation.failed", json={"id": "plugin-cache-claude-code"})
    assert "claude plugin marketplace update memesh` exited with status 3" in json.dumps(body)
    assert len(_calls(updaters)) == 1  # stopped at the first failure


def test_without_the_hosts_cli_on_path_the_fix_says_so(
    api: Any, home: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    _claude_cache(home, OLD)
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    body = api.fails("POST", "/v1/doctor/fix", 400, "operation.failed", json={"id": "plugin-cache-claude-code"})
    assert "`claude` is not on PATH" in json.dumps(body)
