"""The TypeScript MeMesh's database at ~/.memesh/knowledge-graph.db works on first use through every surface: the
MCP server (the first to open it) recalls and remembers, then the CLI recalls, exports, briefs and doctors it, and the
HTTP API reads it; every memory and observation is there and a backup of the original is kept."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
from mcp import ClientSession, StdioServerParameters, stdio_client, types

from memesh.transports.http.app import create_app
from tests.store.test_adoption import FIXTURES, memories, place_original

MEMESH = Path(sys.executable).with_name("memesh")
SERVER = Path(sys.executable).with_name("memesh-mcp")
WAIT_SECONDS = 30.0

pytestmark = pytest.mark.skipif(not FIXTURES.is_dir(), reason="the upstream 4.6.0 fixtures are not on this machine")


def _environment(home: Path) -> dict[str, str]:
    env = {
        key: value
        for key, value in os.environ.items()
        if (not key.startswith("MEMESH_") or key == "MEMESH_DAEMON") and key != "HOME"
    }
    env.update({"HOME": str(home), "MEMESH_UPDATE_CHECK": "0", "PYTHONIOENCODING": "utf-8"})
    return env


def _memesh(home: Path, *argv: str) -> Any:
    done = subprocess.run(
        [str(MEMESH), *argv], env=_environment(home), cwd=home, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


async def _over_mcp(home: Path, query: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """(recall of `query`, the remember of a new memory) through the real memesh-mcp process."""
    params = StdioServerParameters(command=str(SERVER), env=_environment(home), cwd=str(home))
    with (home / "mcp-stderr.log").open("w", encoding="utf-8") as errlog:
        async with (
            stdio_client(params, errlog=errlog) as (read, write),
            ClientSession(read, write, read_timeout_seconds=WAIT_SECONDS) as session,
        ):
            await session.initialize()
            results = []
            for name, arguments in (
                ("recall", {"query": query}),
                ("remember", {"name": "after-adoption", "type": "decision", "observations": ["Kept by Python"]}),
            ):
                result: types.CallToolResult = await session.call_tool(name, arguments)
                assert not result.is_error, result.content
                assert isinstance(result.structured_content, dict)
                results.append(result.structured_content)
    return results[0], results[1]


# Each fixture with a word to recall and a memory that word must find.
FIXTURE_CASES = {
    "33": ("knowledge-graph.db", "oauth", "auth-decision"),
    "10k": ("knowledge-graph-10k.db.gz", "rodasulo", "mem-002747"),
}


@pytest.mark.parametrize("case", sorted(FIXTURE_CASES))
def test_the_originals_database_works_on_first_use_through_mcp_cli_and_http(tmp_path: Path, case: str) -> None:
    fixture, query, expected_name = FIXTURE_CASES[case]
    home = tmp_path / "home"
    db = place_original(home / ".memesh", fixture)
    before = memories(db)

    recalled, remembered = anyio.run(_over_mcp, home, query)
    assert expected_name in {entity["name"] for entity in recalled["entities"]}
    assert remembered["name"] == "after-adoption"

    found = _memesh(home, "recall", "Kept by Python", "--json")
    assert [entity["name"] for entity in found["entities"]] == ["after-adoption"]
    bundle = _memesh(home, "export", "--limit", "100000", "--json")
    exported = {entity["name"]: entity for entity in bundle["entities"]}
    assert len(exported) == len(before) + 1
    for memory in before.values():
        entity = exported[memory["name"]]
        assert entity["observations"] == [content for content, _ in memory["observations"]]
        assert set(entity.get("tags", [])) == memory["tags"]
        assert entity.get("status", "active") == memory["status"]
    if case == "33":
        assert exported["task-state:widget"]["metadata"]["task_state"]["goal"] == "Ship OAuth login"
        briefing = _memesh(home, "briefing", "--project", "widget", "--json")
        assert 32 in briefing["index"]["ids"]

    doctor = _memesh(home, "doctor", "--json")
    checks = {check["id"]: check for check in doctor["checks"]}
    assert checks["database"]["status"] == "pass" and checks["adoption"]["status"] == "pass"
    [backup] = (db.parent / "backups").iterdir()
    assert backup.name in checks["adoption"]["detail"] and str(tmp_path) not in json.dumps(doctor)
    assert memories(backup) == before

    async def over_http() -> httpx.Response:
        app = create_app(db_path=db, update_fetch=None)
        try:
            transport = httpx.ASGITransport(app=app)
            async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1:3737") as client:
                return await client.get(f"/v1/entities/{expected_name}")
        finally:
            app.close()

    answer = anyio.run(over_http)
    assert answer.status_code == 200, answer.text
    [expected] = [memory for memory in before.values() if memory["name"] == expected_name]
    assert answer.json()["data"]["observations"] == [content for content, _ in expected["observations"]]
