"""The whole curation loop across surfaces: an agent prepares and submits over MCP (the real memesh-mcp, a real
client), the proposal waits as pending, and a person accepts it over HTTP or rejects it with the memesh CLI."""

from __future__ import annotations

import shlex
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
from mcp import ClientSession, StdioServerParameters, stdio_client

from memesh.model import sqlite_time
from memesh.transports.http.app import create_app
from tests.backends import Backend
from tests.ops.curation_helpers import seed

BIN = Path(sys.executable).parent
PROJECT = "loop~" + "a" * 32

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def _tool(session: ClientSession, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    result = await session.call_tool(name, arguments)
    assert not result.is_error, result.content
    data = result.structured_content
    assert isinstance(data, dict)
    return data


def _env(db: Path, home: Path, backend: Backend) -> dict[str, str]:
    """A process's environment for the test's database (MEMESH_DATABASE_URL beside MEMESH_DB_PATH on PostgreSQL)."""
    return {"MEMESH_DB_PATH": str(db), "HOME": str(home), **backend.environ(db)}


async def _as_agent(db: Path, home: Path, backend: Backend, steps: list[dict[str, Any]]) -> list[dict[str, Any]]:
    params = StdioServerParameters(command=str(BIN / "memesh-mcp"), env=_env(db, home, backend))
    answers: list[dict[str, Any]] = []
    with (home / "mcp.log").open("a") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            tools = {tool.name for tool in (await session.list_tools()).tools}
            assert {"work_package", "improvement"} <= tools
            prepared = await _tool(session, "work_package", {"action": "prepare", "project": PROJECT, "kind": "digest"})
            package = prepared["package"]
            answers.append(prepared)
            for step in steps:
                arguments = {**step}
                tool = arguments.pop("_tool", "work_package")
                if step.get("action") == "submit":
                    arguments.update(package_id=package["id"], ref=package["ref"])
                answers.append(await _tool(session, tool, arguments))
    return answers


@pytest.fixture
def folder(tmp_path: Path, backend: Backend) -> tuple[Path, Path, Backend]:
    home = tmp_path / "home"
    home.mkdir()
    db = home / ".memesh" / "knowledge-graph.db"
    store = backend.open(db)
    monday = datetime.now(UTC) - timedelta(days=7)
    monday = monday - timedelta(days=monday.weekday())
    for index in range(5):
        seed(store, f"commit-{index}", created_at=sqlite_time(monday + timedelta(minutes=index)), project=PROJECT)
    store.close()
    return db, home, backend


async def test_prepare_and_submit_over_mcp_then_accept_over_http(folder: tuple[Path, Path, Backend]) -> None:
    db, home, backend = folder
    result = {"name": "loop-digest", "type": "digest", "observations": ["Five commits."], "tags": ["topic:loop"]}
    [prepared, staged] = await _as_agent(db, home, backend, [{"action": "submit", "result": result}])
    assert prepared["status"] == "available"
    assert staged["status"] == "staged" and staged["review_authority"] == "human"
    app = create_app(db_path=backend.target(db))
    transport = httpx.ASGITransport(app=app)
    try:
        async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1:3737") as http:
            [row] = (await http.get("/v1/dream/proposals")).json()["data"]
            assert row["id"] == staged["proposal_id"] and row["status"] == "pending"
            accepted = (await http.post(f"/v1/dream/proposals/{row['id']}/accept")).json()["data"]
    finally:
        app.close()
    assert accepted["digestEntityName"] == "loop-digest" and accepted["sourcesArchived"] == 5


async def test_an_improvement_proposed_over_mcp_is_rejected_with_the_cli(folder: tuple[Path, Path, Backend]) -> None:
    db, home, backend = folder
    propose = {
        "_tool": "improvement",
        "action": "propose",
        "project": PROJECT,
        "source_names": ["commit-0"],
        "title": "Squash tiny commits",
        "problem": "Five one-line commits in one hour.",
        "proposed_change": "Offer to squash them.",
        "verification_scenario": "A week of commits shows fewer one-liners.",
        "success_criteria": ["Half as many one-line commits"],
    }
    [_, proposed] = await _as_agent(db, home, backend, [propose])
    reject_command = proposed["review"]["reject"].replace("<text>", "'not now'")
    env = {**_env(db, home, backend), "PATH": str(BIN)}
    argv = shlex.split(reject_command)  # the exact command the review block names
    done = subprocess.run([str(BIN / "memesh"), *argv[1:]], env=env, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    shown = subprocess.run(
        [str(BIN / "memesh"), "dream", "show", str(proposed["proposal_id"]), "--json"],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert '"status":"rejected"' in shown.stdout and '"reason":"not now"' in shown.stdout
