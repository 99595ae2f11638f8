"""The work-package notice: at level full the Claude Code SessionStart hook adds it after the fenced block, outside
its shared limit; the briefing tool and `memesh briefing` never carry it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import anyio
from mcp import ClientSession, StdioServerParameters, stdio_client

from memesh.adapters.transcripts import slug
from memesh.core.briefing_text import FENCE_TAG

from .conftest import HookEnv
from .helpers import remember

NOTICE = "MeMesh work package available"


def _week_of_commits(env: HookEnv, count: int = 5) -> None:
    for n in range(count):
        remember(env, f"commit-{n}", kind="commit")


def _session_start(env: HookEnv, session_id: str = "s-now") -> str:
    run = env.run("SessionStart", {"session_id": session_id, "cwd": str(env.project_dir), "source": "startup"})
    assert run.returncode == 0, run.stderr
    context: str = run.json()["hookSpecificOutput"]["additionalContext"]
    return context


def _transcript(env: HookEnv, session_id: str) -> Path:
    folder = env.home / ".claude" / "projects" / slug(os.path.realpath(env.project_dir))
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{session_id}.jsonl"
    line = {"type": "user", "cwd": os.path.realpath(env.project_dir), "message": {"role": "user", "content": "hi"}}
    path.write_text(json.dumps(line) + "\n")
    return path


def test_at_full_a_ready_digest_week_is_announced_after_the_fence(hook_env: HookEnv) -> None:
    _week_of_commits(hook_env)
    hook_env.env["MEMESH_BRIEFING"] = "full"
    context = _session_start(hook_env)
    block, _, notice = context.partition(f"</{FENCE_TAG}>")
    assert NOTICE not in block
    assert notice.startswith("\n\n" + NOTICE)
    assert '"kind": "digest"' in notice and '"kind": "transcript"' not in notice
    assert f'"project": "{hook_env.project}"' in notice
    assert str(hook_env.home) not in notice and str(hook_env.project_dir) not in notice


def test_the_notice_is_hook_only_and_full_only(hook_env: HookEnv) -> None:
    _week_of_commits(hook_env)
    hook_env.env["MEMESH_BRIEFING"] = "standard"
    assert NOTICE not in _session_start(hook_env)
    hook_env.env["MEMESH_BRIEFING"] = "full"
    assert NOTICE in _session_start(hook_env)
    cli = subprocess.run(
        [str(Path(sys.executable).parent / "memesh"), "briefing", "--project", hook_env.project],
        env=hook_env.env,
        cwd=hook_env.project_dir,
        capture_output=True,
        text=True,
        check=True,
    )
    assert "## Recent activity" in cli.stdout and NOTICE not in cli.stdout
    cli_json = subprocess.run(
        [str(Path(sys.executable).parent / "memesh"), "briefing", "--project", hook_env.project, "--json"],
        env=hook_env.env,
        cwd=hook_env.project_dir,
        capture_output=True,
        text=True,
        check=True,
    )
    assert json.loads(cli_json.stdout)["level"] == "full" and NOTICE not in cli_json.stdout
    text = anyio.run(_tool_text, hook_env)
    assert "## Recent activity" in text and NOTICE not in text


async def _tool_text(env: HookEnv) -> str:
    params = StdioServerParameters(
        command=str(Path(sys.executable).with_name("memesh-mcp")), env=env.env, cwd=str(env.project_dir)
    )
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        result = await session.call_tool("briefing", {"project": env.project})
    assert result.structured_content is not None and result.structured_content["level"] == "full"
    text: str = result.structured_content["text"]
    return text


def test_no_package_ready_means_no_notice(hook_env: HookEnv) -> None:
    _week_of_commits(hook_env, 4)  # a week needs at least five sources
    hook_env.env["MEMESH_BRIEFING"] = "full"
    assert NOTICE not in _session_start(hook_env)


def test_another_recent_session_of_this_folder_offers_a_transcript_package(hook_env: HookEnv) -> None:
    remember(hook_env, "use-wal")
    hook_env.env["MEMESH_BRIEFING"] = "full"
    _transcript(hook_env, "s-now")  # this session's own transcript is not a package for it
    assert NOTICE not in _session_start(hook_env, "s-now")
    _transcript(hook_env, "s-earlier")
    context = _session_start(hook_env, "s-now")
    assert '"kind": "transcript"' in context and '"kind": "digest"' not in context
    assert "s-earlier" not in context and ".jsonl" not in context


def test_a_transcript_older_than_three_days_is_not_offered(hook_env: HookEnv) -> None:
    remember(hook_env, "use-wal")
    hook_env.env["MEMESH_BRIEFING"] = "full"
    old = _transcript(hook_env, "s-old")
    os.utime(old, (0, 1_000_000_000))
    assert NOTICE not in _session_start(hook_env)


def test_under_codex_the_same_hook_adds_no_notice(hook_env: HookEnv) -> None:
    _week_of_commits(hook_env)
    hook_env.env["MEMESH_BRIEFING"] = "full"
    hook_env.env["CODEX_HOME"] = str(hook_env.home / ".codex")
    del hook_env.env["CLAUDECODE"]  # Codex runs the plugin's hook file: no Claude Code mark, CODEX_HOME set
    context = _session_start(hook_env)
    assert "## Recent activity" in context and NOTICE not in context
