"""The plugin as Claude Code installs it: its own CLI (pinned in tools/claude-code, installed by `make test`) adds the
marketplace, validates it strictly and installs the payload; right after, with only /usr/bin:/bin on PATH and no
environment built, `claude mcp list` connects, no failure is cached, and a session (against the stand-in Messages
API on 127.0.0.1) has the twelve tools; once the environment the first start builds in the background is ready, a
session's recall runs MeMesh itself.

The marketplace is a folder laid out as a checkout is (its .claude-plugin/marketplace.json beside the payload
tools/plugin_payload.py writes), with a `.venv`-sized decoy beside them: what the install copies is the payload
alone. Claude Code's own state lives in the test's HOME; the first start of the server needs the package index,
as `make install` does.
"""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path

import pytest

from memesh.app.registry import TOOLS
from tests.payload_tool import plugin_payload
from tests.transports.hooks.stand_in_api import Reply as Say
from tests.transports.hooks.stand_in_api import StandIn, result_text, serving, text, tool_use

pytestmark = pytest.mark.node

ROOT = Path(__file__).resolve().parent.parent
TOOL_PREFIX = "mcp__plugin_memesh_memesh__"
CLAUDE = ROOT / "tools" / "claude-code" / "node_modules" / ".bin" / "claude"
MAX_INSTALLED_BYTES = 10 * 1000 * 1000


def claude(*args: str, home: Path) -> subprocess.CompletedProcess[str]:
    assert CLAUDE.exists(), "Claude Code's CLI is missing: `make claude-code` installs the pinned one"
    env = {**os.environ, "HOME": str(home), "CLAUDE_CONFIG_DIR": str(home / ".claude"), "DISABLE_AUTOUPDATER": "1"}
    return subprocess.run([str(CLAUDE), *args], env=env, capture_output=True, text=True, timeout=180, check=False)


def folder_bytes(folder: Path) -> int:
    return sum(path.stat().st_size for path in folder.rglob("*") if path.is_file() and not path.is_symlink())


def test_claude_code_installs_the_payload_alone_and_a_session_right_after_has_the_twelve_tools(tmp_path: Path) -> None:
    # `make marketplace`: a marketplace outside the checkout, holding nothing that names it (the checkout may move).
    market = plugin_payload.marketplace(tmp_path / "memesh-python")
    for path in market.rglob("*"):
        assert not path.is_file() or str(ROOT).encode() not in path.read_bytes(), path
    decoy = market / ".venv" / "lib"
    decoy.mkdir(parents=True)
    (decoy / "big.bin").write_bytes(os.urandom(12 * 1000 * 1000))  # a checkout's .venv is hundreds of MB
    home = tmp_path / "home"
    home.mkdir()

    for target in (market, market / "plugin"):
        checked = claude("plugin", "validate", "--strict", str(target), home=home)
        assert checked.returncode == 0, checked.stdout[-3000:] + checked.stderr[-1000:]
        assert "Validation passed" in checked.stdout
    added = claude("plugin", "marketplace", "add", str(market), home=home)
    assert added.returncode == 0, added.stderr
    installed = claude("plugin", "install", "memesh@memesh", home=home)
    assert installed.returncode == 0, installed.stderr

    cache = home / ".claude" / "plugins" / "cache"
    assert folder_bytes(cache) <= MAX_INSTALLED_BYTES
    (copy,) = {path.parent.parent for path in cache.rglob("bin/memesh-mcp")}
    assert not (copy / ".venv").exists()
    details = claude("plugin", "details", "memesh@memesh", home=home)
    assert details.returncode == 0, details.stderr
    assert "MCP servers (1)" in details.stdout and "Hooks (6)" in details.stdout
    # The plugin's two skills (skills/memesh, skills/memesh-review) are what Claude Code lists for it.
    assert "Skills (2)  memesh, memesh-review" in details.stdout, details.stdout

    # Right after the install, on a machine where MeMesh's environment was never built (only /usr/bin:/bin on PATH):
    # the check a new user runs first connects, Claude Code remembers no failure, and a session started at once has
    # the twelve tools; a call made while the environment builds is answered (the result, or how long is left).
    listed = claude("mcp", "list", home=home)
    assert "plugin:memesh:memesh" in listed.stdout and "Connected" in listed.stdout, listed.stdout
    assert not (home / ".claude" / "mcp-needs-auth-cache.json").exists()
    recall = tool_use("toolu_recall_1", f"{TOOL_PREFIX}recall", {"query": "retries"})
    with serving(StandIn([Say([recall]), Say([text("Done.")])])) as api:
        session(api, home, tmp_path)
    # Claude Code defers MCP tools behind its ToolSearch: the first request names them, the schemas come on use.
    offered = json.dumps(api.turns[0].body)
    assert all(f"{TOOL_PREFIX}{tool.name}" in offered for tool in TOOLS)
    first = api.turns[1].tool_result("toolu_recall_1")
    assert "No such tool" not in result_text(first)
    assert first.get("is_error") is True or '"entities"' in result_text(first)

    # Once the environment is ready (the build goes on after the session), a session's call runs MeMesh itself.
    stamp = (copy / "PAYLOAD").read_text().split()[0]
    ready = home / ".memesh" / "runtime" / f"env-{stamp}" / ".ready"
    deadline = time.monotonic() + 300
    while not ready.exists() and time.monotonic() < deadline:
        time.sleep(1)
    assert ready.exists(), (home / ".memesh" / "hook-outcomes.jsonl").read_text()
    with serving(StandIn([Say([recall]), Say([text("Done.")])])) as api:
        session(api, home, tmp_path)
    answered = api.turns[1].tool_result("toolu_recall_1")
    assert answered.get("is_error") is not True and '"entities"' in result_text(answered)


def session(api: StandIn, home: Path, cwd: Path) -> None:
    """One `claude -p` session against the stand-in, with the plugin's recall tool allowed."""
    env = {
        "MEMESH_DAEMON": "0",
        "PATH": "/usr/bin:/bin",
        "HOME": str(home),
        "CLAUDE_CONFIG_DIR": str(home / ".claude"),
        "MEMESH_DIR": str(home / ".memesh"),
        "MEMESH_UPDATE_CHECK": "0",
        "ANTHROPIC_BASE_URL": api.url,
        "ANTHROPIC_API_KEY": "sk-ant-stand-in",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "DISABLE_AUTOUPDATER": "1",
        "DISABLE_TELEMETRY": "1",
        "DISABLE_ERROR_REPORTING": "1",
    }
    argv = [str(CLAUDE), "-p", "what do we know about retries", "--allowedTools", f"{TOOL_PREFIX}recall"]
    done = subprocess.run(
        argv, env=env, cwd=cwd, capture_output=True, text=True, timeout=180, stdin=subprocess.DEVNULL, check=False
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
