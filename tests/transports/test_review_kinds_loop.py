"""Pattern, relation and guard proposals across surfaces: staged with `memesh kg propose` (JSON on stdin, as a
script or an agent's shell runs it), reviewed over HTTP and with `memesh dream`, and the accepted effect seen by an
agent through the real memesh-mcp server and by the real `memesh-hook pre-tool-use` process."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from mcp import ClientSession, StdioServerParameters, stdio_client

from memesh.adapters.project_git import project_for
from memesh.transports.http.app import create_app
from tests.backends import Backend
from tests.ops.curation_helpers import seed

BIN = Path(sys.executable).parent
PROJECT = "review~" + "b" * 32

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


# The engine of each test's home: the helpers below take the home alone, as the processes they start do.
ENGINES: dict[Path, Backend] = {}


@pytest.fixture
def home(tmp_path: Path, backend: Backend) -> Iterator[Path]:
    home = tmp_path / "home"
    (home / ".memesh").mkdir(parents=True)
    ENGINES[home] = backend
    store = backend.open(home / ".memesh" / "knowledge-graph.db")
    for name in ("use-jwt", "no-jwt", "keep-jwt"):
        seed(store, name, entity_type="decision", project=PROJECT, observations=(f"{name}: what we decided",))
    seed(store, "lesson-force-push", entity_type="lesson_learned", project=PROJECT, observations=("It hurt.",))
    store.close()
    yield home
    del ENGINES[home]


def _db(home: Path) -> Path:
    return home / ".memesh" / "knowledge-graph.db"


def _env(home: Path) -> dict[str, str]:
    """A process's environment for the test's database (MEMESH_DATABASE_URL beside MEMESH_DB_PATH on PostgreSQL)."""
    return {"HOME": str(home), "MEMESH_DB_PATH": str(_db(home)), "PATH": str(BIN), **ENGINES[home].environ(_db(home))}


def _memesh(home: Path, *argv: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(BIN / "memesh"), *argv], input=stdin, env=_env(home), capture_output=True, text=True, check=False
    )


def _propose(home: Path, kind: str, body: dict[str, Any]) -> dict[str, Any]:
    done = _memesh(home, "kg", "propose", kind, "--json", stdin=json.dumps(body))
    assert done.returncode == 0, done.stdout + done.stderr
    answer: dict[str, Any] = json.loads(done.stdout)
    return answer


async def _http(home: Path, method: str, path: str) -> httpx.Response:
    app = create_app(db_path=ENGINES[home].target(_db(home)))
    try:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1:3737") as http:
            return await http.request(method, path)
    finally:
        app.close()


async def _recall(home: Path, query: str) -> dict[str, Any]:
    env = {
        "MEMESH_DAEMON": "0",
        "MEMESH_DB_PATH": str(_db(home)),
        "HOME": str(home),
        **ENGINES[home].environ(_db(home)),
    }
    params = StdioServerParameters(command=str(BIN / "memesh-mcp"), env=env)
    with (home / "mcp.log").open("a") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            tools = {tool.name for tool in (await session.list_tools()).tools}
            assert len(tools) == 12  # staging these kinds adds no MCP tool
            result = await session.call_tool("recall", {"query": query, "include_archived": True})
            assert not result.is_error, result.content
            assert isinstance(result.structured_content, dict)
            return result.structured_content


async def test_a_relation_staged_on_the_cli_is_accepted_over_http_and_an_agent_sees_it(home: Path) -> None:
    body = {
        "project": PROJECT,
        "from": "no-jwt",
        "to": "use-jwt",
        "relation_type": "contradicts",
        "rationale": "One says JWT, the other says no JWT.",
    }
    staged = _propose(home, "relation", body)
    assert staged["created"] is True and staged["review"]["accept"] == f"memesh dream accept {staged['proposal_id']}"
    [row] = (await _http(home, "GET", "/v1/dream/proposals")).json()["data"]
    assert row["kind"] == "relation" and row["digest_name"] == "no-jwt —contradicts→ use-jwt"
    assert row["source_count"] == 2 and row["digest_observations_preview"] == body["rationale"]
    shown = (await _http(home, "GET", f"/v1/dream/proposals/{row['id']}")).json()["data"]
    assert shown["proposed_digest"]["relation_type"] == "contradicts" and shown["kind"] == "relation"
    accepted = await _http(home, "POST", f"/v1/dream/proposals/{row['id']}/accept")
    assert accepted.status_code == 200, accepted.text
    assert accepted.json()["data"]["kind"] == "relation"
    again = await _http(home, "POST", f"/v1/dream/proposals/{row['id']}/accept")
    assert again.status_code == 400 and again.json()["errorCode"] == "operation.failed"
    recalled = await _recall(home, "jwt")
    assert recalled.get("conflicts") and "contradicts" in json.dumps(recalled["conflicts"])
    names = {entity["name"]: entity for entity in recalled["entities"]}
    assert set(names) == {"use-jwt", "no-jwt", "keep-jwt"}  # no memory created, none archived


async def test_a_pattern_is_accepted_with_the_cli_and_its_sources_stay_active(home: Path) -> None:
    body = {
        "project": PROJECT,
        "source_names": ["use-jwt", "no-jwt", "keep-jwt"],
        "name": "auth-flip-flop",
        "observations": ["The auth decision flipped three times."],
        "tags": ["topic:auth"],
    }
    staged = _propose(home, "pattern_emergent", body)
    listed = _memesh(home, "dream", "list")
    assert listed.returncode == 0 and "pattern_emergent  auth-flip-flop" in listed.stdout
    shown = _memesh(home, "dream", "show", str(staged["proposal_id"]))
    assert "sources stay active" in shown.stdout and "The auth decision flipped three times." in shown.stdout
    accepted = _memesh(home, "dream", "accept", str(staged["proposal_id"]), "--json")
    assert accepted.returncode == 0, accepted.stderr
    assert json.loads(accepted.stdout)["sourcesLinked"] == 3 and json.loads(accepted.stdout)["sourcesArchived"] == 0
    recalled = await _recall(home, "auth flip-flop jwt")
    names = {entity["name"]: entity for entity in recalled["entities"]}
    assert names["auth-flip-flop"]["type"] == "pattern_emergent"
    for source in ("use-jwt", "no-jwt", "keep-jwt"):
        assert {"from": source, "to": "auth-flip-flop", "type": "evidence_for"} in names[source]["relations"]


async def test_a_guard_accepted_over_http_stops_the_first_matching_command_in_its_own_project_only(
    home: Path, tmp_path: Path
) -> None:
    here, elsewhere = tmp_path / "here", tmp_path / "elsewhere"
    here.mkdir()
    elsewhere.mkdir()
    body = {
        "project": project_for(str(here)),
        "lesson": "lesson-force-push",
        "pattern": r"git\s+push\b.*\s--force\b",
        "message": "Force-pushing main lost a day of work",
        "should_match": ["git push origin main --force", "git push --force-with-lease x --force"],
        "should_not_match": ["git push origin main", "git pull --force"],
    }

    def hook(folder: Path, command: str, session: str = "s1") -> str:
        hook_input = {
            "session_id": session,
            "cwd": str(folder),
            "hook_event_name": "PreToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": command},
        }
        done = subprocess.run(
            [str(BIN / "memesh-hook"), "pre-tool-use"],
            input=json.dumps(hook_input),
            env=_env(home),
            capture_output=True,
            text=True,
            cwd=folder,
            timeout=60,
            check=False,
        )
        assert done.returncode == 0, done.stderr
        return done.stdout

    refused = _memesh(home, "kg", "propose", "guard", stdin=json.dumps({**body, "pattern": "git\\s.*"}))
    assert refused.returncode == 1 and "routine command" in refused.stderr
    staged = _propose(home, "guard", body)
    assert "Force-pushing" not in hook(here, "git push origin main --force")  # staged is not applied
    shown = (await _http(home, "GET", f"/v1/dream/proposals/{staged['proposal_id']}")).json()["data"]
    assert shown["kind"] == "guard" and shown["proposed_digest"]["guard"]["pattern"] == body["pattern"]
    accepted = await _http(home, "POST", f"/v1/dream/proposals/{staged['proposal_id']}/accept")
    assert accepted.status_code == 200, accepted.text
    assert accepted.json()["data"]["digestEntityName"] == "guard on lesson-force-push"
    # Another project's session (the lesson itself is tagged with a third one): the guard is not its business.
    assert hook(elsewhere, "git push origin main --force") == ""
    assert hook(here, "git push origin main") == ""
    stopped = json.loads(hook(here, "git push origin main --force"))["hookSpecificOutput"]
    assert stopped["permissionDecision"] == "deny"
    assert "Force-pushing main lost a day of work (lesson lesson-force-push)" in stopped["permissionDecisionReason"]
    assert hook(here, "git push origin main --force") == ""  # the retry runs
    assert (
        json.loads(hook(here, "git push origin main --force", session="s2"))["hookSpecificOutput"]["permissionDecision"]
        == "deny"
    )


def test_two_processes_staging_the_same_proposal_at_once_stage_one(home: Path) -> None:
    body = {"project": PROJECT, "from": "no-jwt", "to": "use-jwt", "relation_type": "duplicates", "rationale": "Same."}
    runs = [
        subprocess.Popen(
            [str(BIN / "memesh"), "kg", "propose", "relation", "--json"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=_env(home),
            text=True,
        )
        for _ in range(4)
    ]
    answers = [json.loads(run.communicate(json.dumps(body), timeout=60)[0]) for run in runs]
    assert sorted(answer["created"] for answer in answers) == [False, False, False, True]
    assert len({answer["proposal_id"] for answer in answers}) == 1
    listed = json.loads(_memesh(home, "dream", "list", "--status", "all", "--json").stdout)
    assert len(listed) == 1
