"""An improvement proposed over MCP and accepted with `memesh dream accept` is product work in the project's
briefing — the tool, `memesh briefing` and the SessionStart block — with its unverified states in view."""

from __future__ import annotations

import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
from mcp import ClientSession, StdioServerParameters, stdio_client

from .conftest import HookEnv

BIN = Path(sys.executable).parent
HEAD = "## Product work (accepted; not verified as built or effective)"


async def _mcp(env: HookEnv, calls: list[tuple[str, dict[str, Any]]]) -> list[dict[str, Any]]:
    params = StdioServerParameters(command=str(BIN / "memesh-mcp"), env=env.env, cwd=str(env.project_dir))
    answers = []
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        for name, arguments in calls:
            result = await session.call_tool(name, arguments)
            assert not result.is_error, result.content
            assert isinstance(result.structured_content, dict)
            answers.append(result.structured_content)
    return answers


def _memesh(env: HookEnv, *argv: str) -> str:
    done = subprocess.run(
        [str(BIN / "memesh"), *argv], env=env.env, cwd=env.project_dir, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def _lesson(env: HookEnv, name: str) -> tuple[str, dict[str, Any]]:
    tags = [f"project:{env.project}"]
    return "remember", {"name": name, "type": "lesson_learned", "observations": [f"{name} happened"], "tags": tags}


def test_an_accepted_improvement_is_product_work_on_every_way_in(hook_env: HookEnv) -> None:
    propose = {
        "action": "propose",
        "project": hook_env.project,
        "source_names": ["flaky-ci", "slow-review"],
        "title": "Add claims and leases to shared work",
        "problem": "Two agents picked the same task twice this week.",
        "proposed_change": "Claim a task before starting it; the claim expires.",
        "verification_scenario": "Two agents start at once; only one works on the task.",
        "success_criteria": ["No task is done twice in a week"],
        "priority": "p0",
    }
    *_, proposed = anyio.run(
        _mcp, hook_env, [_lesson(hook_env, "flaky-ci"), _lesson(hook_env, "slow-review"), ("improvement", propose)]
    )
    pending = _memesh(hook_env, "briefing", "--project", hook_env.project)
    assert HEAD not in pending  # a pending proposal is not work yet
    accept = shlex.split(proposed["review"]["accept"])  # the exact command the review block names
    _memesh(hook_env, *accept[1:])

    line = "- [product_improvement] Add claims and leases to shared work — p0; implementation: unverified; outcome: "
    [tool] = anyio.run(_mcp, hook_env, [("briefing", {"project": hook_env.project})])
    cli = _memesh(hook_env, "briefing", "--project", hook_env.project)
    run = hook_env.run("SessionStart", {"session_id": "s1", "cwd": str(hook_env.project_dir)})
    hook = run.json()["hookSpecificOutput"]["additionalContext"]
    for text in (tool["text"], cli, hook):
        head = text.index(HEAD)
        assert text.index(line) > head and "outcome: unverified [mem:" in text[text.index(line) :]
        assert text.index("## Lessons") < head  # the lessons it was learned from come first, as evidence
    assert tool["entityCount"] == 3


def test_later_evidence_changes_the_state_the_briefing_shows(hook_env: HookEnv) -> None:
    anyio.run(_mcp, hook_env, [_lesson(hook_env, "flaky-ci")])
    _memesh(
        hook_env,
        "remember",
        "--name",
        "claims",
        "--type",
        "product_improvement",
        "--obs",
        "Claim a task before starting it",
        "--tags",
        f"project:{hook_env.project}",
        "priority:p2",
        "implementation:verified",
        "outcome:unverified",
    )
    text = _memesh(hook_env, "briefing", "--project", hook_env.project)
    assert "- [product_improvement] claims — p2; implementation: verified; outcome: unverified [mem:" in text
