"""Every launcher a host starts carries the database choice (memesh.launchers.DATABASE_ENVIRONMENT): the manifests
name every variable a filtering host needs to be told about, and the launcher scripts pass each one on to MeMesh.
Gemini CLI's own filter is checked against the real CLI in tests/transports/test_gemini_cli.py."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from memesh.launchers import DATABASE_ENVIRONMENT

REPO = Path(__file__).resolve().parent.parent
# What a sandboxed launcher may count on besides the listed variables.
BASE = {"PATH": os.environ["PATH"], "HOME": os.environ["HOME"]}


def _json(relative: str) -> dict[str, Any]:
    found: dict[str, Any] = json.loads((REPO / relative).read_text())
    return found


def test_the_list_names_each_variable_once() -> None:
    assert len(set(DATABASE_ENVIRONMENT)) == len(DATABASE_ENVIRONMENT)
    assert {"MEMESH_DATABASE_URL", "MEMESH_DATABASE_POOLER", "PGPASSFILE", "PGSSLROOTCERT"} <= set(DATABASE_ENVIRONMENT)


def test_the_codex_mcp_entry_forwards_every_database_variable() -> None:
    # Codex starts a plugin's MCP server with a short default list (HOME, PATH, USER, …) plus the names given here.
    server = _json(".codex-plugin/mcp.json")["mcpServers"]["memesh"]
    assert server["env_vars"] == list(DATABASE_ENVIRONMENT)
    assert "env" not in server  # a fixed value would pin every user's database to the manifest's


def test_the_claude_mcp_entry_sets_no_database_variable_of_its_own() -> None:
    # Claude Code starts an MCP server with its whole environment (seen with `claude mcp list`): nothing to name,
    # and nothing may be fixed over the user's.
    server = _json(".claude-plugin/mcp.json")["mcpServers"]["memesh"]
    assert not set(server.get("env", {})) & set(DATABASE_ENVIRONMENT)


def _values(folder: Path) -> dict[str, str]:
    """A distinct value for every listed variable (MEMESH_DIR a real folder: the plugin's launchers look there)."""
    values = {name: f"value-of-{name.lower()}" for name in DATABASE_ENVIRONMENT}
    values["MEMESH_DIR"] = str(folder / "memesh-dir")
    return values


def _dumper(path: Path, out: Path) -> Path:
    """An executable that writes the environment it got to `out` as JSON."""
    path.parent.mkdir(parents=True, exist_ok=True)
    python = shutil.which("python3") or "/usr/bin/python3"
    path.write_text(
        f"#!{python}\nimport json, os\nopen({str(out)!r}, 'w').write(json.dumps(dict(os.environ)))\n", encoding="utf-8"
    )
    path.chmod(0o755)
    return path


def _arrived(launcher: Path, env: dict[str, str], out: Path) -> dict[str, str]:
    subprocess.run([str(launcher)], env=env, input="{}", capture_output=True, text=True, check=True, timeout=60)
    found: dict[str, str] = json.loads(out.read_text())
    return found


@pytest.mark.parametrize(
    ("script", "override"), [("memesh-mcp", "MEMESH_MCP_COMMAND"), ("memesh-hook", "MEMESH_HOOK_COMMAND")]
)
def test_the_checkouts_launchers_pass_every_database_variable_on(tmp_path: Path, script: str, override: str) -> None:
    out = tmp_path / "env.json"
    values = _values(tmp_path)
    env = {**BASE, **values, override: str(_dumper(tmp_path / "server", out))}
    arrived = _arrived(REPO / "bin" / script, env, out)
    assert {name: arrived.get(name) for name in DATABASE_ENVIRONMENT} == values


@pytest.mark.parametrize("script", ["memesh", "memesh-mcp", "memesh-hook"])
def test_the_plugin_payloads_launchers_pass_every_database_variable_on(tmp_path: Path, script: str) -> None:
    # The installed plugin's launchers, on their ready path: the environment the payload built is there.
    root = tmp_path / "plugin"
    shutil.copytree(REPO / "tools" / "plugin", root)
    (root / "PAYLOAD").write_text("p1\nm1\n", encoding="utf-8")
    values = _values(tmp_path)
    runtime = Path(values["MEMESH_DIR"]) / "runtime" / "env-p1"
    out = tmp_path / "env.json"
    _dumper(runtime / "bin" / script, out)
    (runtime / ".ready").write_text("", encoding="utf-8")
    arrived = _arrived(root / "bin" / script, {**BASE, **values}, out)
    assert {name: arrived.get(name) for name in DATABASE_ENVIRONMENT} == values
