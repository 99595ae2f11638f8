"""The Claude Code and Codex plugins as shipped: manifests that point at files that exist, an MCP server entry that
starts this package's server, and a hooks file whose commands run this package's hooks."""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest

from memesh.core.claude_settings import EVENTS

REPO = Path(__file__).resolve().parent.parent


def _json(relative: str) -> dict[str, Any]:
    value = json.loads((REPO / relative).read_text())
    assert isinstance(value, dict)
    return value


def test_the_claude_manifest_names_its_mcp_file_and_leaves_the_standard_hooks_file_implicit() -> None:
    manifest = _json(".claude-plugin/plugin.json")
    assert manifest["name"] == "memesh" and "hooks" not in manifest  # hooks/hooks.json loads by convention
    assert (REPO / str(manifest["mcpServers"])).is_file()
    # The marketplace installs the payload tools/plugin_payload.py writes (tests/test_plugin_payload.py), whose
    # manifests are these files.
    [entry] = _json(".claude-plugin/marketplace.json")["plugins"]
    assert (entry["name"], entry["source"]) == ("memesh", "./plugin")


def test_the_codex_manifest_forwards_the_data_location_to_its_mcp_server() -> None:
    manifest = _json(".codex-plugin/plugin.json")
    assert (REPO / str(manifest["mcpServers"])).is_file() and (REPO / str(manifest["hooks"])).is_file()
    server = _json(".codex-plugin/mcp.json")["mcpServers"]["memesh"]
    assert set(server["env_vars"]) >= {"MEMESH_DIR", "MEMESH_DB_PATH"} and server["cwd"] == "."  # test_launchers
    assert (REPO / server["command"]).is_file()


def test_the_hooks_file_covers_the_events_setup_installs() -> None:
    hooks = _json("hooks/hooks.json")["hooks"]
    assert isinstance(hooks, dict)
    shipped = [(event, g.get("matcher"), g["hooks"][0]["command"]) for event, groups in hooks.items() for g in groups]
    assert shipped == [
        (event, matcher, f'"${{CLAUDE_PLUGIN_ROOT}}/bin/memesh-hook" {name}') for event, name, matcher, _ in EVENTS
    ]


def test_the_launchers_are_executable_posix_scripts() -> None:
    for name in ("memesh-hook", "memesh-mcp"):
        script = REPO / "bin" / name
        assert os.access(script, os.X_OK) and script.read_text().startswith("#!/bin/sh\n")


@pytest.mark.anyio
async def test_the_claude_plugin_mcp_entry_starts_this_server(tmp_path: Path) -> None:
    from mcp import ClientSession, StdioServerParameters, stdio_client

    entry = _json(".claude-plugin/mcp.json")["mcpServers"]["memesh"]
    command = re.sub(r"\$\{CLAUDE_PLUGIN_ROOT\}", str(REPO), entry["command"])
    params = StdioServerParameters(
        command=command,
        args=entry["args"],
        env={
            "MEMESH_DAEMON": "0",
            "CLAUDE_PLUGIN_ROOT": str(REPO),
            "MEMESH_DB_PATH": str(tmp_path / "db"),
            "PATH": os.environ["PATH"],
        },
        cwd=str(tmp_path),
    )
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        names = {tool.name for tool in (await session.list_tools()).tools}
    assert "briefing" in names and "remember" in names


def test_the_hook_launcher_never_blocks_when_nothing_is_installed(tmp_path: Path) -> None:
    bare = tmp_path / "plugin"
    (bare / "bin").mkdir(parents=True)
    (bare / "bin" / "memesh-hook").write_bytes((REPO / "bin" / "memesh-hook").read_bytes())
    (bare / "bin" / "memesh-hook").chmod(0o755)
    done = subprocess.run(
        [str(bare / "bin" / "memesh-hook"), "session-start"],
        input=b'{"session_id": "s"}',
        env={"MEMESH_DAEMON": "0", "CLAUDE_PLUGIN_ROOT": str(bare), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        check=False,
    )
    assert done.returncode == 0 and done.stdout == b""
