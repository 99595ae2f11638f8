"""A durable-memory index that cannot be read costs the index, not the briefing: the block says it could not be read
(never the empty-state line), the hook records an error outcome, and the tool still answers. The fault is real: a
damaged page of the database file, under a memory only the index reads."""

from __future__ import annotations

import sqlite3
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import ClientSession, StdioServerParameters, stdio_client

from memesh.context import CallContext
from memesh.core.briefing_index import UNREADABLE, empty_line
from tests.calls import call

from .conftest import HookEnv

pytestmark = pytest.mark.sqlite_only  # damages the SQLite file's pages

OVERFLOW_TEXT = "~^" * 4900  # one first observation long enough to spill onto overflow pages


def _damaged_index(env: HookEnv) -> None:
    """A decision whose first observation sits on overflow pages, then 200 newer commits (so the briefing's ranked
    slots never read that decision's text; only the index does), then those overflow pages damaged on disk."""
    ctx = CallContext(source_host="test", agent_view=False, now=datetime.now(UTC), project=lambda: env.project)
    store = env.store()
    try:
        tags = [f"project:{env.project}"]
        body = {"name": "use-wal", "type": "decision", "observations": [OVERFLOW_TEXT, "short"], "tags": tags}
        call("remember", store, body, ctx).unwrap()
        for n in range(200):
            call("remember", store, {"name": f"c{n}", "type": "commit", "observations": ["x"], "tags": tags}, ctx)
        store.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        overflow = "SELECT pageno FROM dbstat WHERE name = 'observations' AND pagetype = 'overflow'"
        pages = [row[0] for row in store.conn.execute(overflow)]
        page_size = store.conn.execute("PRAGMA page_size").fetchone()[0]
    finally:
        store.close()
    assert pages
    with env.db.open("r+b") as handle:
        for page in pages:  # each overflow page begins with the number of the next one: point it past the file
            handle.seek((page - 1) * page_size)
            handle.write(b"\x7f\xff\xff\xff")
    check = sqlite3.connect(env.db)
    try:  # the fault is where it should be: that text cannot be read, the rest can
        assert check.execute("SELECT count(*) FROM entities").fetchone()[0] == 201
        try:
            check.execute("SELECT length(content) FROM observations ORDER BY id LIMIT 1").fetchone()
        except sqlite3.DatabaseError:
            pass
        else:
            raise AssertionError("the overflow pages were not damaged")
    finally:
        check.close()


def test_the_hook_says_the_index_could_not_be_read_and_records_an_error(hook_env: HookEnv) -> None:
    _damaged_index(hook_env)
    hook_env.env["MEMESH_BRIEFING"] = "standard"
    run = hook_env.run("SessionStart", {"session_id": "s1", "cwd": str(hook_env.project_dir)})
    assert run.returncode == 0, run.stderr
    context = run.json()["hookSpecificOutput"]["additionalContext"]
    assert UNREADABLE in context and "No durable memories" not in context
    assert "## Recent activity" in context  # the rest of the briefing still arrived
    outcomes = [(o["outcome"], o.get("reason")) for o in hook_env.outcomes()]
    assert ("error", "durable-memory index unreadable") in outcomes
    assert outcomes[-1][0] == "notified"


def test_the_tool_answers_with_the_same_line_in_text_and_index(hook_env: HookEnv) -> None:
    _damaged_index(hook_env)
    hook_env.env["MEMESH_BRIEFING"] = "standard"
    data = anyio.run(_briefing, hook_env)
    assert UNREADABLE in data["text"] and "No durable memories" not in data["text"]
    assert data["index"]["lines"][1] == UNREADABLE and data["index"]["shown"] == 0
    assert empty_line("proj") not in data["index"]["lines"]


async def _briefing(env: HookEnv) -> dict[str, Any]:
    params = StdioServerParameters(
        command=str(Path(sys.executable).with_name("memesh-mcp")), env=env.env, cwd=str(env.project_dir)
    )
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        result = await session.call_tool("briefing", {"project": env.project})
    assert not result.is_error, result.content
    assert isinstance(result.structured_content, dict)
    return result.structured_content
