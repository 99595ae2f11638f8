"""The official MCP Inspector CLI accepts the server, over stdio (memesh-mcp) and over streamable HTTP (`memesh
serve`'s /mcp, the bearer on a remote listener): tools/list --strict in both eras, and a tools/call."""

from __future__ import annotations

import json
import os
import re
import subprocess
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from memesh.app.registry import TOOLS

if TYPE_CHECKING:
    from tests.transports.mcp.conftest import Launcher, McpHarness

# Installed once by `make inspector` (a dependency of `make test`), pinned in tools/inspector/package-lock.json: 2.12.0
# declares Node >= 22 but runs on 20, and has the --strict the newest release allowing Node 20 (0.15.0) lacks.
# It speaks streamable HTTP too (`--transport http`, `--header`).
INSPECTOR = Path(__file__).resolve().parents[3] / "tools" / "inspector" / "node_modules" / ".bin" / "mcp-inspector"
RUN_SECONDS = 120
# The Inspector's conformance checks are of the protocol (tools/list --strict, one call): they run on SQLite alone,
# the calls themselves on both engines through the other MCP tests (each Inspector run costs seconds).
pytestmark = [pytest.mark.node, pytest.mark.one_engine("the protocol's conformance as the Inspector checks it")]
Run = Callable[..., subprocess.CompletedProcess[str]]


def _run(command: list[str], folder: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    if not INSPECTOR.exists():
        pytest.fail(f"the MCP Inspector is not installed at {INSPECTOR}: run `make inspector`")
    # The Inspector writes its catalog file under HOME.
    env = {"MEMESH_DAEMON": "0", "PATH": os.environ.get("PATH", ""), "HOME": str(folder), **env}
    return subprocess.run(
        [str(INSPECTOR), "--cli", *command],
        capture_output=True,
        text=True,
        env=env,
        cwd=folder,
        timeout=RUN_SECONDS,
        check=False,
    )


def inspector(harness: McpHarness, *arguments: str) -> subprocess.CompletedProcess[str]:
    """The Inspector starting memesh-mcp, over stdio."""
    env = harness.params().env or {}  # MEMESH_DB_PATH (and MEMESH_DATABASE_URL on PostgreSQL)
    command = [
        *arguments,
        *(part for name, value in env.items() for part in ("-e", f"{name}={value}")),
        *harness.command,
    ]
    return _run(command, harness.folder, {"MEMESH_UPDATE_CHECK": "0"})


def over_http(folder: Path, url: str, *arguments: str) -> subprocess.CompletedProcess[str]:
    """The Inspector against a URL, over its streamable HTTP transport."""
    return _run([url, "--transport", "http", *arguments], folder, {})


def lists_cleanly(run: Run) -> None:
    for era in ("legacy", "modern"):
        done = run("--method", "tools/list", "--strict", "--protocol-era", era)
        assert done.returncode == 0, done.stderr
        assert [tool["name"] for tool in json.loads(done.stdout)["tools"]] == [tool.name for tool in TOOLS]
        # A clean report prints nothing; any finding prints a "Warning:"/"Error:" block and an "N errors, M
        # warnings" summary line.
        assert not re.search(r"^(Warning|Error)\b", done.stderr, re.MULTILINE), done.stderr
        assert not re.search(r"\b[1-9]\d* (errors?|warnings?)\b", done.stderr), done.stderr


def remembers(run: Run) -> None:
    remembered = run(
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


def test_the_inspector_lists_every_tool_with_no_strict_errors_or_warnings_in_either_era(
    mcp_process: McpHarness,
) -> None:
    lists_cleanly(partial(inspector, mcp_process))
    remembers(partial(inspector, mcp_process))


def test_the_inspector_lists_and_calls_over_http_at_mcp(serve: Launcher) -> None:
    server = serve()
    lists_cleanly(partial(over_http, serve.folder, server.url))
    remembers(partial(over_http, serve.folder, server.url))


def test_the_inspector_reaches_a_remote_listener_only_with_the_bearer_header(serve: Launcher) -> None:
    server = serve("--host", "0.0.0.0", "--allow-remote")
    lists_cleanly(partial(over_http, serve.folder, server.url, "--header", f"Authorization: Bearer {server.token()}"))
    refused = over_http(serve.folder, server.url, "--method", "tools/list")
    assert refused.returncode != 0
    # The Inspector reads the 401 as "authorization required" (and, without a terminal, does not start OAuth).
    assert '"code":"auth_required"' in refused.stderr
