"""A MEMESH_DB_PATH in a folder that does not exist is an error naming the variable on every transport, never a new
empty database; MeMesh's own folder (~/.memesh, or MEMESH_DIR) is still created on first use."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import anyio
import httpx
import pytest
from mcp import ClientSession, StdioServerParameters, stdio_client, types

from memesh.transports.http.app import create_app

BIN = Path(sys.executable).parent


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    """A clean environment whose HOME is in the test's folder, and a mistyped MEMESH_DB_PATH."""
    clean = {
        key: value for key, value in os.environ.items() if (not key.startswith("MEMESH_") or key == "MEMESH_DAEMON")
    }
    clean["HOME"] = str(tmp_path / "home")
    clean["MEMESH_DB_PATH"] = str(tmp_path / "tpyo" / "knowledge-graph.db")
    return clean


def memesh(env: dict[str, str], *argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(BIN / "memesh"), *argv], env=env, capture_output=True, text=True, check=False)


def test_the_cli_says_which_variable_is_wrong(env: dict[str, str], tmp_path: Path) -> None:
    done = memesh(env, "remember", "a note", "--json")
    assert done.returncode == 1
    assert "MEMESH_DB_PATH" in done.stdout
    assert not (tmp_path / "tpyo").exists()


def test_the_mcp_server_says_which_variable_is_wrong(env: dict[str, str], tmp_path: Path) -> None:
    params = StdioServerParameters(command=str(BIN / "memesh-mcp"), env=env, cwd=str(tmp_path))

    async def call() -> types.CallToolResult:
        with (tmp_path / "stderr.log").open("w", encoding="utf-8") as errlog:
            async with stdio_client(params, errlog=errlog) as (read, write), ClientSession(read, write) as session:
                await session.initialize()
                return await session.call_tool("remember", {"note": "a note"})

    result = anyio.run(call)
    assert result.is_error
    [block] = result.content
    assert isinstance(block, types.TextContent)
    assert "MEMESH_DB_PATH" in block.text
    assert not (tmp_path / "tpyo").exists()


def test_the_http_api_says_which_variable_is_wrong(
    env: dict[str, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MEMESH_DB_PATH", env["MEMESH_DB_PATH"])
    app = create_app()

    async def health() -> httpx.Response:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1:3737") as client:
            return await client.get("/v1/health")

    try:
        response = anyio.run(health)
    finally:
        app.close()
    assert response.status_code == 503
    assert response.json()["errorCode"] == "server.internal"
    assert "MEMESH_DB_PATH" in response.json()["error"]
    assert not (tmp_path / "tpyo").exists()


@pytest.mark.parametrize("db_path", [None, "~/.memesh/knowledge-graph.db"], ids=["unset", "in-the-default-folder"])
def test_the_default_folder_is_still_created_on_first_use(
    env: dict[str, str], tmp_path: Path, db_path: str | None
) -> None:
    del env["MEMESH_DB_PATH"]
    if db_path is not None:
        env["MEMESH_DB_PATH"] = db_path
    assert memesh(env, "remember", "a note").returncode == 0
    assert (tmp_path / "home" / ".memesh" / "knowledge-graph.db").is_file()
