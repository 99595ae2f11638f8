"""A file memory as an agent writes one: tagged `file:app.py` and nothing else (the agent does not know the
project's id). The project's Read hook gives it with the file and `memesh why` lists it; a memory another project
tagged stays out of both."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from .conftest import HookEnv
from .test_tool_hooks import _git, _read

MEMESH = str(Path(sys.executable).parent / "memesh")


def memesh(env: HookEnv, *argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [MEMESH, *argv], cwd=env.project_dir, env=env.env, capture_output=True, text=True, timeout=60, check=False
    )


def remembered(env: HookEnv, name: str, *tags: str) -> int:
    done = memesh(
        env, "remember", "--name", name, "--type", "decision", "--obs", f"about {name}", "--tags", *tags, "--json"
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return int(json.loads(done.stdout)["entityId"])


def test_a_file_memory_tagged_with_the_file_alone_comes_with_the_read_and_in_why(hook_env: HookEnv) -> None:
    _git(hook_env, "init", "-q", "-b", "main")
    (hook_env.project_dir / "app.py").write_text("retries = 3\n")
    _git(hook_env, "add", ".")
    _git(hook_env, "commit", "-qm", "app")
    mine = remembered(hook_env, "app-retries-odd", "file:app.py")
    theirs = remembered(hook_env, "other-app-note", "file:app.py", "project:elsewhere~" + "e" * 32)

    context = _read(hook_env, str(hook_env.project_dir / "app.py")).json()["hookSpecificOutput"]["additionalContext"]
    assert f"[mem:{mine}]" in context and f"[mem:{theirs}]" not in context
    assert hook_env.outcomes()[-1]["outcome"] == "notified"

    done = memesh(hook_env, "why", "app.py", "--json")
    assert done.returncode == 0, done.stderr
    listed = [entity["name"] for entity in json.loads(done.stdout)["file_memories"]["entities"]]
    assert listed == ["app-retries-odd"]
