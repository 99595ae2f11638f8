"""The plugin as Claude Code installs it: its own CLI (pinned in tools/claude-code, installed by `make test`) adds the
marketplace, validates it strictly, installs the payload, and the installed copy's server command builds MeMesh's
environment with only /usr/bin:/bin on PATH and lists the twelve tools.

The marketplace is a folder laid out as a checkout is (its .claude-plugin/marketplace.json beside the payload
tools/plugin_payload.py writes), with a `.venv`-sized decoy beside them: what the install copies is the payload
alone. Claude Code's own state lives in the test's HOME; the first start of the server needs the package index,
as `make install` does.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import anyio
import pytest
from mcp import ClientSession, StdioServerParameters, stdio_client

from memesh.app.registry import TOOLS
from tests.payload_tool import plugin_payload

pytestmark = pytest.mark.node

ROOT = Path(__file__).resolve().parent.parent
CLAUDE = ROOT / "tools" / "claude-code" / "node_modules" / ".bin" / "claude"
MAX_INSTALLED_BYTES = 10 * 1000 * 1000


def claude(*args: str, home: Path) -> subprocess.CompletedProcess[str]:
    assert CLAUDE.exists(), "Claude Code's CLI is missing: `make claude-code` installs the pinned one"
    env = {**os.environ, "HOME": str(home), "CLAUDE_CONFIG_DIR": str(home / ".claude"), "DISABLE_AUTOUPDATER": "1"}
    return subprocess.run([str(CLAUDE), *args], env=env, capture_output=True, text=True, timeout=180, check=False)


def folder_bytes(folder: Path) -> int:
    return sum(path.stat().st_size for path in folder.rglob("*") if path.is_file() and not path.is_symlink())


def test_claude_code_installs_the_payload_alone_and_its_server_bootstraps_the_twelve_tools(tmp_path: Path) -> None:
    market = tmp_path / "memesh-python"
    (market / ".claude-plugin").mkdir(parents=True)
    shutil.copyfile(ROOT / ".claude-plugin" / "marketplace.json", market / ".claude-plugin" / "marketplace.json")
    plugin_payload.build(market / "plugin")
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

    # The installed copy's own server command, as the host starts it, on a machine where MeMesh was never
    # installed: only /usr/bin:/bin on PATH.
    mcp_entry = json.loads((copy / ".claude-plugin" / "mcp.json").read_text())["mcpServers"]["memesh"]
    command = mcp_entry["command"].replace("${CLAUDE_PLUGIN_ROOT}", str(copy))
    env = {"PATH": "/usr/bin:/bin", "HOME": str(home), "MEMESH_DIR": str(home / ".memesh")}
    params = StdioServerParameters(
        command=command, args=mcp_entry["args"], env={**env, "CLAUDE_PLUGIN_ROOT": str(copy)}
    )

    async def listing() -> list[str]:
        with (tmp_path / "server.log").open("w", encoding="utf-8") as errlog:
            async with stdio_client(params, errlog=errlog) as (read, write), ClientSession(read, write) as session:
                await session.initialize()
                return [tool.name for tool in (await session.list_tools()).tools]

    assert anyio.run(listing) == [tool.name for tool in TOOLS]
    assert "setting up its Python environment" in (tmp_path / "server.log").read_text()
