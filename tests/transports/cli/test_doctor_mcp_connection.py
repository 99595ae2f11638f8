"""Doctor and Claude Code's cache of failed MCP connections: the real Claude Code (pinned in tools/claude-code)
installs a plugin named memesh whose server cannot start, `claude mcp list` fails to connect and remembers it, and
`memesh doctor` says so and, with --fix, makes Claude Code forget it. Everything lives in the test's HOME."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.node

REPO = Path(__file__).resolve().parents[3]
CLAUDE = REPO / "tools" / "claude-code" / "node_modules" / ".bin" / "claude"
BIN = Path(sys.executable).parent
CHECK = "mcp-connection-claude-code"


def broken_marketplace(root: Path) -> Path:
    """A marketplace holding a plugin called memesh whose MCP server exits at once."""
    market = root / "market"
    (market / ".claude-plugin").mkdir(parents=True)
    (market / "plugin" / ".claude-plugin").mkdir(parents=True)
    (market / "plugin" / "bin").mkdir()
    entry = {"name": "memesh", "source": "./plugin", "description": "a server that cannot start"}
    catalog = {"name": "memesh", "owner": {"name": "t"}, "plugins": [entry]}
    (market / ".claude-plugin" / "marketplace.json").write_text(json.dumps(catalog))
    server = {"command": "${CLAUDE_PLUGIN_ROOT}/bin/server", "args": []}
    manifest = {"name": "memesh", "version": "0.1.0", "description": "x", "mcpServers": {"memesh": server}}
    (market / "plugin" / ".claude-plugin" / "plugin.json").write_text(json.dumps(manifest))
    (market / "plugin" / "bin" / "server").write_text("#!/bin/sh\nexit 1\n")
    (market / "plugin" / "bin" / "server").chmod(0o755)
    return market


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    home = tmp_path / "home"
    (home / ".claude").mkdir(parents=True)
    return {
        "PATH": f"{BIN}{os.pathsep}/usr/bin:/bin",
        "HOME": str(home),
        "CLAUDE_CONFIG_DIR": str(home / ".claude"),
        "MEMESH_DIR": str(home / ".memesh"),
        "MEMESH_UPDATE_CHECK": "0",
        "DISABLE_AUTOUPDATER": "1",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
    }


def run(argv: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(argv, env=env, capture_output=True, text=True, timeout=180, check=False)


def doctor_check(env: dict[str, str]) -> dict[str, Any] | None:
    done = run([str(BIN / "memesh"), "doctor", "--json"], env)
    checks = json.loads(done.stdout)["checks"]
    return next((check for check in checks if check["id"] == CHECK), None)


def test_doctor_finds_the_failed_connection_claude_code_remembers_and_its_fix_makes_claude_code_forget_it(
    tmp_path: Path, env: dict[str, str]
) -> None:
    if not CLAUDE.exists():
        pytest.fail(f"Claude Code's CLI is not installed at {CLAUDE}: run `make claude-code`")
    assert doctor_check(env) is None  # nothing remembered: no such check at all
    market = broken_marketplace(tmp_path)
    for argv in (["plugin", "marketplace", "add", str(market)], ["plugin", "install", "memesh@memesh"]):
        done = run([str(CLAUDE), *argv], env)
        assert done.returncode == 0, done.stderr
    listed = run([str(CLAUDE), "mcp", "list"], env)  # the check a new user runs right after installing
    assert "plugin:memesh:memesh" in listed.stdout

    found = doctor_check(env)
    assert found is not None
    assert (found["status"], found.get("fixable")) == ("warn", True)
    assert str(tmp_path) not in json.dumps(found)

    fixed = run([str(BIN / "memesh"), "doctor", "--fix", CHECK, "--json"], env)
    assert fixed.returncode == 0, fixed.stdout + fixed.stderr
    answer = json.loads(fixed.stdout)
    assert (answer["after"], answer["restartRequired"]) == (None, True)
    cache = json.loads((Path(env["CLAUDE_CONFIG_DIR"]) / "mcp-needs-auth-cache.json").read_text())
    assert not [key for key in cache if key.startswith("plugin:memesh:")]
    assert doctor_check(env) is None
