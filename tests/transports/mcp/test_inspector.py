"""The official MCP Inspector CLI accepts the server: tools/list --strict in both eras, and a tools/call."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from memesh.app.registry import TOOLS

if TYPE_CHECKING:
    from tests.transports.mcp.conftest import McpHarness

# Pinned: unpinned, npx on Node 20 resolves to the newest release whose `engines` allow Node 20 (0.15.0), which has
# no --strict and fails with "spawn --strict ENOENT". 2.12.0 declares Node >= 22 but runs on 20.
INSPECTOR = "@modelcontextprotocol/inspector@2.12.0"
INSTALL_SECONDS = 600  # the first run downloads the Inspector; later runs reuse the npm cache in .venv
OFFLINE = re.compile(r"ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ECONNRESET|ETIMEDOUT|ENETUNREACH")


def inspector(harness: McpHarness, *arguments: str) -> subprocess.CompletedProcess[str]:
    npx = shutil.which("npx")
    if npx is None:
        pytest.skip("npx is not installed")
    env = {
        "PATH": os.environ.get("PATH", ""),
        "HOME": str(harness.folder),  # the Inspector writes its catalog file under HOME
        "MEMESH_UPDATE_CHECK": "0",
        "npm_config_cache": str(Path(sys.prefix) / "npm-cache"),
        "npm_config_loglevel": "error",
        "npm_config_update_notifier": "false",
        "npm_config_fund": "false",
        "npm_config_audit": "false",
    }
    command = [npx, "-y", INSPECTOR, "--cli", *arguments, "-e", f"MEMESH_DB_PATH={harness.db}", *harness.command]
    done = subprocess.run(
        command, capture_output=True, text=True, env=env, cwd=harness.folder, timeout=INSTALL_SECONDS, check=False
    )
    if done.returncode != 0 and OFFLINE.search(done.stderr):
        pytest.skip(f"the npm registry is not reachable: {OFFLINE.search(done.stderr)}")
    return done


def test_the_inspector_lists_every_tool_with_no_strict_errors_or_warnings_in_either_era(
    mcp_server: McpHarness,
) -> None:
    for era in ("legacy", "modern"):
        done = inspector(mcp_server, "--method", "tools/list", "--strict", "--protocol-era", era)
        assert done.returncode == 0, done.stderr
        assert [tool["name"] for tool in json.loads(done.stdout)["tools"]] == [tool.name for tool in TOOLS]
        # A clean report prints nothing; any finding prints a "Warning:"/"Error:" block and an "N errors, M
        # warnings" summary line.
        assert not re.search(r"^(Warning|Error)\b", done.stderr, re.MULTILINE), done.stderr
        assert not re.search(r"\b[1-9]\d* (errors?|warnings?)\b", done.stderr), done.stderr
    remembered = inspector(
        mcp_server,
        "--method",
        "tools/call",
        "--tool-name",
        "remember",
        "--tool-args-json",
        json.dumps({"name": "inspected", "type": "decision", "observations": ["via the Inspector"]}),
    )
    assert remembered.returncode == 0, remembered.stderr
    answer = json.loads(remembered.stdout)
    assert answer["isError"] is False
    assert answer["structuredContent"]["name"] == "inspected"
