"""Transcript work packages through the MCP server, reached by an MCP client that offers workspace roots, over
real Claude Code transcript files under ~/.claude/projects/."""

from __future__ import annotations

import json
import os
import subprocess
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from mcp import types

from memesh.adapters.project_git import project_for
from memesh.adapters.transcripts import slug
from tests.backends import Backend
from tests.transports.mcp.conftest import LEGACY, McpClient, McpInMemory

SECRET = "ghp_" + "k" * 36

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def _line(kind: str, content: Any, cwd: str, **extra: Any) -> str:
    return json.dumps(
        {"type": kind, "message": {"role": kind, "content": content}, "cwd": cwd, "sessionId": "s", **extra}
    )


def write_transcript(home: Path, workspace: Path, session: str, turns: list[str], *, age_days: float = 0) -> Path:
    """A session file as Claude Code keeps it: ~/.claude/projects/<slug of the cwd>/<session id>.jsonl."""
    folder = home / ".claude" / "projects" / slug(str(workspace))
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{session}.jsonl"
    path.write_text("\n".join(turns) + "\n", encoding="utf-8")
    moment = time.time() - age_days * 86400
    os.utime(path, (moment, moment))
    return path


def conversation(cwd: str) -> list[str]:
    return [
        json.dumps({"type": "file-history-snapshot", "snapshot": {"files": []}}),
        _line("user", "Why does the parser drop the last line?", cwd),
        _line(
            "assistant",
            [
                {"type": "thinking", "thinking": "private reasoning never leaves"},
                {"type": "text", "text": f"Because the loop stops early. (token {SECRET})"},
                {"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "cat /etc/hostname"}},
            ],
            cwd,
        ),
        _line("user", [{"type": "tool_result", "tool_use_id": "t1", "content": "TOOL OUTPUT"}], cwd),
        _line("user", "<command-name>/clear</command-name>", cwd),
        _line("assistant", [{"type": "text", "text": "We decided to keep the loop and fix the bound."}], cwd),
    ]


@asynccontextmanager
async def client(home: Path, db: Path, roots: list[Path] | None, backend: Backend) -> AsyncIterator[McpClient]:
    """A client offering `roots` (none: no roots capability) to a server on `db` (on the test's engine), run from
    `home`."""
    async with McpInMemory(folder=home, db=db, backend=backend).connect(LEGACY, roots=roots) as session:
        yield session


async def ok(session: McpClient, arguments: dict[str, Any]) -> dict[str, Any]:
    result = await session.call("work_package", arguments)
    [block] = result.content
    assert isinstance(block, types.TextContent)
    assert not result.is_error, block.text
    data = result.structured_content
    assert isinstance(data, dict)
    return data


async def fails(session: McpClient, arguments: dict[str, Any]) -> str:
    result = await session.call("work_package", arguments)
    assert result.is_error
    [block] = result.content
    assert isinstance(block, types.TextContent)
    return block.text


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The HOME the server sees (its transcripts are under ~/.claude), and the folder it runs from; it serves no
    hooks."""
    folder = tmp_path / "home"
    folder.mkdir()
    monkeypatch.setenv("HOME", str(folder))
    monkeypatch.setenv("MEMESH_HOOK_SERVER", "0")
    monkeypatch.chdir(folder)
    return folder


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    folder = tmp_path / "work" / "app"
    folder.mkdir(parents=True)
    return folder.resolve()


RESULT = {"name": "parser-bound", "type": "decision", "observations": ["Fix the loop bound."], "tags": ["topic:parser"]}


async def test_a_client_offering_its_root_gets_the_visible_turns_and_stages_one_proposal(
    home: Path, workspace: Path, tmp_path: Path, backend: Backend
) -> None:
    path = write_transcript(home, workspace, "sess-1", conversation(str(workspace)))
    project = project_for(str(workspace))
    async with client(home, tmp_path / "m.db", [workspace], backend) as session:
        prepared = await ok(session, {"action": "prepare", "project": project, "kind": "transcript"})
        assert prepared["status"] == "available"
        package = prepared["package"]
        assert package["sources"] == [
            {"role": "user", "text": "Why does the parser drop the last line?"},
            {"role": "assistant", "text": "Because the loop stops early. (token ***REDACTED***)"},
            {"role": "assistant", "text": "We decided to keep the loop and fix the bound."},
        ]
        assert package["source"] == {"host": "claude-code", "scope": "mcp-workspace-root"}
        assert package["coverage"] == {"truncated": False, "total_turns": 3, "included_turns": 3}
        assert package["ref"]["session_id"] == "sess-1"
        text = json.dumps(prepared)
        for leak in (str(path), str(path.parent), str(workspace), str(home), "private reasoning", "TOOL OUTPUT"):
            assert leak not in text
        submit = {"action": "submit", "package_id": package["id"], "ref": package["ref"], "result": RESULT}
        staged = await ok(session, submit)
        assert staged["status"] == "staged"
        again = await ok(session, submit)
        assert again == {**staged, "status": "existing"}
        after = await ok(session, {"action": "prepare", "project": project, "kind": "transcript"})
        assert after["status"] == "none_available"
        assert after["skipped_sessions"] == {"already_proposed": 1}
        with_sessions = await fails(session, {**submit, "ref": {**package["ref"], "source_hash": "0" * 64}})
        assert with_sessions.startswith("stale_package")


async def test_a_session_whose_newest_turn_is_over_48_kib_is_offered_clipped_and_says_so(
    home: Path, workspace: Path, tmp_path: Path, backend: Backend
) -> None:
    cwd = str(workspace)
    long_reply = "We measured every path. " * 3_000  # ~72 KB, one visible turn
    write_transcript(
        home,
        workspace,
        "sess-long",
        [_line("user", "Measure it", cwd), _line("assistant", [{"type": "text", "text": long_reply}], cwd)],
    )
    project = project_for(cwd)
    async with client(home, tmp_path / "m.db", [workspace], backend) as session:
        prepared = await ok(session, {"action": "prepare", "project": project, "kind": "transcript"})
    assert prepared["status"] == "available"
    package = prepared["package"]
    assert package["coverage"] == {"truncated": True, "total_turns": 2, "included_turns": 1, "clipped_turns": 1}
    (source,) = package["sources"]
    assert source["role"] == "assistant" and source["text"].endswith("…")
    assert long_reply.startswith(source["text"][:-1])


async def test_the_newest_session_is_chosen_and_old_or_foreign_ones_are_not(
    home: Path, workspace: Path, tmp_path: Path, backend: Backend
) -> None:
    cwd = str(workspace)
    write_transcript(home, workspace, "older", [_line("user", "older question", cwd)], age_days=1)
    write_transcript(home, workspace, "newest", [_line("user", "newest question", cwd)])
    write_transcript(home, workspace, "stale", [_line("user", "four days ago", cwd)], age_days=4)
    write_transcript(home, workspace, "elsewhere", [_line("user", "other folder", "/somewhere/else")])
    write_transcript(home, workspace, "no-cwd", [json.dumps({"type": "user", "message": {"content": "x"}})])
    project = project_for(cwd)
    async with client(home, tmp_path / "m.db", [workspace], backend) as session:
        prepared = await ok(session, {"action": "prepare", "project": project, "kind": "transcript"})
        assert prepared["package"]["sources"] == [{"role": "user", "text": "newest question"}]


async def test_a_client_without_roots_or_with_none_matching_fails_closed(
    home: Path, workspace: Path, tmp_path: Path, backend: Backend
) -> None:
    write_transcript(home, workspace, "sess", conversation(str(workspace)))
    project = project_for(str(workspace))
    prepare = {"action": "prepare", "project": project, "kind": "transcript"}
    async with client(home, tmp_path / "a.db", None, backend) as session:
        assert (await fails(session, prepare)).startswith("workspace_unavailable")
    other = tmp_path / "other"
    other.mkdir()
    async with client(home, tmp_path / "b.db", [other], backend) as session:
        assert (await fails(session, prepare)).startswith("workspace_unavailable")


async def test_two_roots_of_one_project_are_ambiguous(home: Path, tmp_path: Path, backend: Backend) -> None:
    roots = []
    for name in ("one", "two"):
        folder = tmp_path / name / "repo"
        folder.mkdir(parents=True)
        subprocess.run(["git", "init", "-q", str(folder)], check=True)
        subprocess.run(
            ["git", "-C", str(folder), "remote", "add", "origin", "https://github.com/acme/repo.git"], check=True
        )
        roots.append(folder.resolve())
    project = project_for(str(roots[0]))
    assert project == project_for(str(roots[1]))
    async with client(home, tmp_path / "c.db", roots, backend) as session:
        message = await fails(session, {"action": "prepare", "project": project, "kind": "transcript"})
        assert message.startswith("workspace_ambiguous")
