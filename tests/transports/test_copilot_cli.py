"""The real GitHub Copilot CLI (npm @github/copilot 1.0.102, pinned in tools/copilot-cli/package-lock.json, installed
by `make copilot-cli`; skipped where it is not installed) loads MeMesh's hooks from the repository's
`.github/hooks/memesh.json` — the block the README gives — and runs them in a session against a scripted model
stand-in on 127.0.0.1 (its bring-your-own-provider variables: COPILOT_OFFLINE, COPILOT_PROVIDER_TYPE=anthropic,
COPILOT_PROVIDER_BASE_URL), with HOME and COPILOT_HOME in the test's folder.

What 1.0.102 was seen to do: its config folder is COPILOT_HOME when set (else ~/.copilot); without the repository
(or a folder it is in) in `trustedFolders` of that folder's config.json (an older `trusted_folders` is read and
renamed; the list is refused in settings.json) it loads no repository hooks; `memesh setup --host copilot-cli --trust`
adds it, and then sessionStart, preToolUse, postToolUse and agentStop run with camelCase payloads (`sessionId`,
`toolName: "bash"`, `toolArgs` as an object, `toolResult.textResultForLlm`, agentStop's `transcriptPath` and
`stop_hook_active`; tests/fixtures/hosts/copilot_cli/ holds them), and a preToolUse `permissionDecision: deny`
keeps the command from running and hands the model its reason.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from memesh.adapters.project_git import project_for
from memesh.store.sqlite import open_store

from .hooks.stand_in_api import Reply, StandIn, serving, text, tool_use

pytestmark = pytest.mark.node

REPO = Path(__file__).resolve().parents[2]
COPILOT = REPO / "tools" / "copilot-cli" / "node_modules" / ".bin" / "copilot"
CACHE = REPO / "tools" / "copilot-cli" / ".cache"  # where it unpacks itself once (~235 MB), outside the test's HOME
BIN = Path(sys.executable).parent
LESSON = "Force-pushing main lost a day of work: push a branch and open a pull request"
PUSH = "touch pushed.marker && git push origin main --force"
FINAL = "Stopped before the force push, as the lesson says: next, push a branch and open a pull request."


class CopilotStandIn(StandIn):
    """The Messages API stand-in, taking Copilot's `bash` tool for the main loop's (it looks for `Bash`)."""

    def answer(self, path: str, body: Any) -> tuple[int, str, bytes]:
        if isinstance(body, dict):
            for tool in body.get("tools") or []:
                if tool.get("name") == "bash":
                    tool["name"] = "Bash"
        return super().answer(path, body)


def readme_hooks_file() -> dict[str, Any]:
    """The .github/hooks/memesh.json the README gives for Copilot CLI, with this checkout's memesh-hook."""
    readme = (REPO / "README.md").read_text()
    opening = readme.index("```json\n", readme.index("<!-- copilot-hooks -->")) + len("```json\n")
    block = readme[opening : readme.index("```", opening)]
    found: dict[str, Any] = json.loads(block.replace("/path/to/.venv/bin/memesh-hook", str(BIN / "memesh-hook")))
    return found


def test_copilot_cli_loads_the_repositorys_hooks_and_a_guard_stops_the_push(tmp_path: Path) -> None:
    if not COPILOT.exists():
        pytest.skip(f"Copilot CLI is not installed at {COPILOT}: `make copilot-cli` installs the pinned one")
    home, repo, copilot_home = tmp_path / "home", tmp_path / "repo", tmp_path / "copilot-home"
    (repo / ".github" / "hooks").mkdir(parents=True)
    home.mkdir()
    subprocess.run(["git", "init", "-q", "-b", "main"], cwd=repo, check=True)
    env = {
        "MEMESH_DAEMON": "0",
        "COPILOT_HOME": str(copilot_home),  # its config folder, for the CLI and for memesh setup alike
        "PATH": f"{BIN}{os.pathsep}/usr/bin:/bin",
        "HOME": str(home),
        "MEMESH_DIR": str(home / ".memesh"),
        "MEMESH_UPDATE_CHECK": "0",
        "COPILOT_CACHE_HOME": str(CACHE),
        "COPILOT_AUTO_UPDATE": "false",
        "COPILOT_OFFLINE": "1",
        "COPILOT_PROVIDER_TYPE": "anthropic",
        "COPILOT_PROVIDER_API_KEY": "stand-in",
        "COPILOT_MODEL": "claude-stand-in",
        "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com",
        "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com",
    }  # fmt: skip
    # The hooks file is the one `memesh setup` writes, and it is exactly the README's block.
    wired = subprocess.run(
        [str(BIN / "memesh"), "setup", "--host", "copilot-cli", "--yes"],
        cwd=repo, env=env, capture_output=True, check=False,
    )  # fmt: skip
    assert wired.returncode == 0, wired.stderr.decode()
    assert json.loads((repo / ".github" / "hooks" / "memesh.json").read_text()) == readme_hooks_file()
    assert "memesh" in json.loads((copilot_home / "mcp-config.json").read_text())["mcpServers"]
    # Not trusted yet: a session runs none of the repository's hooks.
    with serving(CopilotStandIn([Reply([text("Nothing to do.")])])) as api:
        untrusted = subprocess.run(
            [str(COPILOT), "-p", "hello", "--allow-all-tools"],
            cwd=repo, env={**env, "COPILOT_PROVIDER_BASE_URL": api.url}, capture_output=True, timeout=180, check=False,
        )  # fmt: skip
    assert untrusted.returncode == 0, untrusted.stderr.decode()[-2000:]
    assert not (home / ".memesh" / "hook-outcomes.jsonl").exists()
    trusted = subprocess.run(
        [str(BIN / "memesh"), "setup", "--host", "copilot-cli", "--trust", "--yes", "--json"],
        cwd=repo, env=env, capture_output=True, check=False,
    )  # fmt: skip
    assert trusted.returncode == 0 and json.loads(trusted.stdout)["trusted"] is True, trusted.stderr.decode()
    assert not (home / ".copilot").exists()  # COPILOT_HOME is the folder: nothing under ~/.copilot
    project = project_for(str(repo))
    guard = {"pattern": r"git\s+push\s+.*--force", "message": LESSON}
    subprocess.run(
        [str(BIN / "memesh"), "remember", "--name", "lesson-force-push", "--type", "lesson_learned",
         "--obs", LESSON, "--tags", f"project:{project}"],
        cwd=repo, env=env, check=True, capture_output=True,
    )  # fmt: skip
    store = open_store(home / ".memesh" / "knowledge-graph.db")
    try:
        entity = store.find("lesson-force-push")
        assert entity is not None
        with store.transaction():
            store.update_metadata(entity.id, {**entity.metadata, "guard": guard})
    finally:
        store.close()
    script = [Reply([tool_use("toolu_push", "bash", {"command": PUSH, "description": "push"})]), Reply([text(FINAL)])]
    with serving(CopilotStandIn(script)) as api:
        done = subprocess.run(
            [str(COPILOT), "-p", "push main", "--allow-all-tools"],
            cwd=repo,
            env={**env, "COPILOT_PROVIDER_BASE_URL": api.url},
            capture_output=True,
            timeout=180,
            check=False,
        )
        assert done.returncode == 0, done.stderr.decode()[-2000:]
        assert FINAL in done.stdout.decode()
        # The push never ran, and the model read the lesson as the refused call's result.
        assert not (repo / "pushed.marker").exists()
        assert len(api.turns) == 2 and LESSON in json.dumps(api.turns[1].last_turn())
    outcomes = [json.loads(line) for line in (home / ".memesh" / "hook-outcomes.jsonl").read_text().splitlines()]
    assert {o["host"] for o in outcomes} == {"copilot-cli"}
    seen = {(o["hook"], o["outcome"]) for o in outcomes}
    assert {("session-start", "notified"), ("guard", "notified"), ("handoff-capture", "skipped")} <= seen
