"""memesh why after the hooks captured a commit: git names the commits, the graph what is remembered of them."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from .conftest import HookEnv, assistant, tool_result, tool_use, user
from .helpers import remember
from .test_tool_hooks import _commit, _post

MEMESH = str(Path(sys.executable).parent / "memesh")


def _why(env: HookEnv, *argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [MEMESH, "why", *argv], cwd=env.project_dir, env=env.env, capture_output=True, text=True, check=False
    )


def test_a_captured_commit_leads_to_its_session_and_the_file_memories(hook_env: HookEnv) -> None:
    printed, full = _commit(hook_env)
    _post(hook_env, "git commit -m 'Store sessions in WAL mode'", printed)
    work = [
        user("go"),
        *[tool_use(f"t{i}", "Bash", {"command": "ls"}) for i in range(3)],
        *[tool_result(f"t{i}", "ok") for i in range(3)],
        assistant("done"),
    ]
    hook_env.run(
        "Stop",
        {"session_id": "sess-9", "transcript_path": str(hook_env.transcript(work)), "cwd": str(hook_env.project_dir)},
    )
    remember(hook_env, "store-notes", tags=[f"project:{hook_env.project}", "file:store.py"])
    done = _why(hook_env, "src/store.py", "--json")
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    [item] = out["commits"]
    assert item["commit"]["hash"] == full and item["abstentions"] == []
    assert item["entity"]["name"] == f"commit-{full[:7]}"
    assert item["session"]["session_id"] == "sess-9"
    assert [e["name"] for e in item["session"]["entities"]] == ["session-sess-9-summary"]
    assert out["file_memories"]["basis"] == "file-tag"
    assert {e["name"] for e in out["file_memories"]["entities"]} == {f"commit-{full[:7]}", "store-notes"}
    text = _why(hook_env, "src/store.py").stdout
    assert "Store sessions in WAL mode" in text and "Associated, not commit-derived (file:store.py):" in text


def test_a_commit_made_without_hooks_is_said_to_be_unknown(hook_env: HookEnv) -> None:
    _commit(hook_env)
    out = json.loads(_why(hook_env, "README.md", "--json").stdout)
    assert out["commits"][0]["abstentions"] == ["no_commit_entity"] and out["commits"][0]["entity"] is None


def test_outside_a_repository_and_untracked_files_abstain(hook_env: HookEnv) -> None:
    assert json.loads(_why(hook_env, "x.py", "--json").stdout)["abstentions"] == ["not_a_git_repo"]
    _commit(hook_env)
    assert json.loads(_why(hook_env, "new.py", "--json").stdout)["abstentions"] == ["file_not_tracked"]
    out = json.loads(_why(hook_env, "README.md", "--line", "9", "--json").stdout)
    assert out["abstentions"] == ["line_out_of_range"] and out["commits"] == []
