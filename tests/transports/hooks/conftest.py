"""Hooks run as Claude Code runs them: the exact command the shipped hooks file names, hook JSON on stdin."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from memesh.adapters.project_git import project_for
from memesh.store.open import Store
from tests.backends import Backend

REPO = Path(__file__).resolve().parents[3]
HOOKS_FILE = REPO / "hooks" / "hooks.json"


def shipped_command(event: str, tool: str | None = None) -> str:
    """The command hooks/hooks.json runs for `event` (and, for tool events, the matcher that takes `tool`)."""
    import re

    groups = json.loads(HOOKS_FILE.read_text())["hooks"][event]
    for group in groups:
        matcher = group.get("matcher")
        if tool is None or matcher is None or re.fullmatch(matcher, tool):
            return str(group["hooks"][0]["command"])
    raise LookupError(f"no {event} hook for {tool}")


@dataclass
class HookRun:
    returncode: int
    stdout: str
    stderr: str

    def json(self) -> Any:
        return json.loads(self.stdout)


@dataclass
class HookEnv:
    """The hooks' folder and database (`db`: the SQLite file, or on PostgreSQL the name of the test's database, whose
    URL `env` carries as MEMESH_DATABASE_URL; the folder of `db` keeps the local files either way)."""

    home: Path
    db: Path
    project_dir: Path
    env: dict[str, str]
    backend: Backend

    @property
    def project(self) -> str:
        return project_for(str(self.project_dir))

    def run(self, event: str, payload: Any, *, tool: str | None = None) -> HookRun:
        data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
        done = subprocess.run(
            ["sh", "-c", shipped_command(event, tool)],
            input=data,
            capture_output=True,
            env=self.env,
            cwd=self.project_dir,
            timeout=60,
            check=False,
        )
        return HookRun(done.returncode, done.stdout.decode(), done.stderr.decode())

    def outcomes(self) -> list[dict[str, Any]]:
        path = self.db.parent / "hook-outcomes.jsonl"
        if not path.exists():
            return []
        return [json.loads(line) for line in path.read_text().splitlines()]

    def store(self) -> Store:
        return self.backend.open(self.db)

    def with_db(self, db: Path, **env: str) -> HookEnv:
        """The same hooks on another database (`MEMESH_DB_PATH` and, on PostgreSQL, its own URL), plus `env`."""
        changed = {**self.env, "MEMESH_DB_PATH": str(db), **self.backend.environ(db), **env}
        return HookEnv(self.home, db, self.project_dir, changed, self.backend)

    def transcript(self, entries: list[dict[str, Any]], name: str = "s1.jsonl") -> Path:
        folder = self.home / ".claude" / "projects" / "-tmp-proj"
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / name
        path.write_text("".join(json.dumps(entry) + "\n" for entry in entries))
        return path


@pytest.fixture
def hook_env(tmp_path: Path, backend: Backend) -> HookEnv:
    home = tmp_path / "home"
    db = home / ".memesh" / "knowledge-graph.db"
    project_dir = tmp_path / "proj"
    project_dir.mkdir(parents=True)
    env = {
        "MEMESH_DAEMON": "0",
        "PATH": f"{Path(sys.executable).parent}:{os.environ.get('PATH', '/usr/bin:/bin')}",
        "HOME": str(home),
        "MEMESH_DIR": str(home / ".memesh"),
        "MEMESH_DB_PATH": str(db),
        "CLAUDE_PLUGIN_ROOT": str(REPO),
        "CLAUDECODE": "1",
        "GIT_CONFIG_NOSYSTEM": "1",
        **backend.environ(db),
    }
    return HookEnv(home, db, project_dir, env, backend)


def user(text: str) -> dict[str, Any]:
    return {"type": "user", "message": {"role": "user", "content": text}}


def assistant(text: str) -> dict[str, Any]:
    return {"type": "assistant", "message": {"role": "assistant", "content": [{"type": "text", "text": text}]}}


def tool_use(call_id: str, name: str, tool_input: dict[str, Any]) -> dict[str, Any]:
    block = {"type": "tool_use", "id": call_id, "name": name, "input": tool_input}
    return {"type": "assistant", "message": {"role": "assistant", "content": [block]}}


def tool_result(call_id: str, text: str, *, error: bool = False) -> dict[str, Any]:
    block = {"type": "tool_result", "tool_use_id": call_id, "content": text, "is_error": error}
    return {"type": "user", "message": {"role": "user", "content": [block]}}


Remember = Callable[..., None]
