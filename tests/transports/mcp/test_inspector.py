"""The official MCP Inspector CLI accepts the server: tools/list --strict in both eras, and a tools/call."""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from memesh.app.registry import TOOLS

if TYPE_CHECKING:
    from tests.transports.mcp.conftest import McpHarness

# Installed once by `make inspector` (a dependency of `make test`), pinned in tools/inspector/package-lock.json: 2.12.0
# declares Node >= 22 but runs on 20, and has the --strict the newest release allowing Node 20 (0.15.0) lacks.
INSPECTOR = Path(__file__).resolve().parents[3] / "tools" / "inspector" / "node_modules" / ".bin" / "mcp-inspector"
RUN_SECONDS = 120


def inspector(harness: McpHarness, *arguments: str) -> subprocess.CompletedProcess[str]:
    if not INSPECTOR.exists():
        pytest.fail(f"the MCP Inspector is not installed at {INSPECTOR}: run `make inspector`")
    env = {
        "PATH": os.environ.get("PATH", ""),
        "HOME": str(harness.folder),  # the Inspector writes its catalog file under HOME
        "MEMESH_UPDATE_CHECK": "0",
    }
    command = [str(INSPECTOR), "--cli", *arguments, "-e", f"MEMESH_DB_PATH={harness.db}", *harness.command]
    return subprocess.run(
        command, capture_output=True, text=True, env=env, cwd=harness.folder, timeout=RUN_SECONDS, check=False
    )


def test_the_inspector_lists_every_tool_with_no_strict_errors_or_warnings_in_either_era(
    mcp_process: McpHarness,
) -> None:
    for era in ("legacy", "modern"):
        done = inspector(mcp_process, "--method", "tools/list", "--strict", "--protocol-era", era)
        assert done.returncode == 0, done.stderr
        assert [tool["name"] for tool in json.loads(done.stdout)["tools"]] == [tool.name for tool in TOOLS]
        # A clean report prints nothing; any finding prints a "Warning:"/"Error:" block and an "N errors, M
        # warnings" summary line.
        assert not re.search(r"^(Warning|Error)\b", done.stderr, re.MULTILINE), done.stderr
        assert not re.search(r"\b[1-9]\d* (errors?|warnings?)\b", done.stderr), done.stderr
    remembered = inspector(
        mcp_process,
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
