"""memesh-hook reaches the hook operations through the door alone: the runner decodes stdin, leaves early where the
trigger plainly does not apply, and hands the rest to dispatch.run; what comes back is written as it came."""

from __future__ import annotations

import ast
import io
import json
import sqlite3
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from returns.result import Result

from memesh.app.operations import hooks as entries
from memesh.context import CallContext
from memesh.errors import MemeshError
from memesh.transports.hooks import runner

from .conftest import REPO


def _imports(path: Path) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
    return found


def test_nothing_in_the_hook_transport_imports_an_operation_an_adapter_or_the_store() -> None:
    folder = REPO / "transports" / "hooks"
    offenders = {
        f"{path.name}: {name}"
        for path in folder.glob("*.py")
        for name in _imports(path)
        if name.startswith(("memesh.ops", "memesh.adapters", "memesh.store"))
    }
    assert offenders == set()


def _run(event: str, payload: Any, env: dict[str, str], cwd: Path) -> tuple[str, list[dict[str, Any]]]:
    out = io.StringIO()
    assert runner.run(event, json.dumps(payload).encode(), out, runner.HookCall(env, str(cwd))) == 0
    outcomes = Path(env["MEMESH_DB_PATH"]).parent / "hook-outcomes.jsonl"
    records = [json.loads(line) for line in outcomes.read_text().splitlines()] if outcomes.exists() else []
    return out.getvalue(), records


@pytest.fixture
def env(memesh_env: Path) -> dict[str, str]:
    return {"MEMESH_DIR": str(memesh_env.parent), "MEMESH_DB_PATH": str(memesh_env), "CLAUDECODE": "1"}


def test_the_answer_is_printed_and_recorded_as_the_operation_gave_it(env: dict[str, str], tmp_path: Path) -> None:
    printed, records = _run("pre-tool-use", {"tool_name": "Glob", "tool_input": {}}, env, tmp_path)
    assert printed == ""
    assert [(r["hook"], r["host"], r["outcome"], r["reason"]) for r in records] == [
        ("pre-edit", "claude-code", "skipped", "not a file edit")
    ]


def test_a_refusal_of_the_gate_is_recorded_as_a_fixed_label(env: dict[str, str], tmp_path: Path) -> None:
    printed, records = _run("stop", {"cwd": str(tmp_path)}, env, tmp_path)
    assert printed == "" and [r["outcome"] for r in records] == ["error"]
    assert records[0]["hook"] == "handoff-capture"
    assert records[0]["reason"] == "stdin JSON does not fit the event's schema"


def test_a_database_failure_on_the_way_is_recorded_by_its_code(
    env: dict[str, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def locked(uses: Any, request: Any, /, *, ctx: CallContext) -> Result[Any, MemeshError]:
        raise sqlite3.OperationalError("database is locked")

    broken = replace(entries.SESSION_START, load=lambda: locked)
    monkeypatch.setitem(entries.BY_EVENT, "session-start", broken)
    printed, records = _run("session-start", {"session_id": "s1"}, env, tmp_path)
    assert printed == "" and [(r["outcome"], r["reason"]) for r in records] == [("error", "uncaught server.internal")]


def test_an_exception_on_the_way_is_recorded_by_its_name(
    env: dict[str, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(uses: Any, request: Any, /, *, ctx: CallContext) -> Result[Any, MemeshError]:
        raise KeyError("secret text that must not be recorded")

    monkeypatch.setitem(entries.BY_EVENT, "stop-gate", replace(entries.STOP_GATE, load=lambda: broken))
    declared = {**env, "MEMESH_RECIPIENT": "reviewer"}  # a session naming none leaves before the door
    _, records = _run("stop-gate", {"session_id": "s1", "transcript_path": "t.jsonl"}, declared, tmp_path)
    assert [(r["hook"], r["outcome"], r["reason"]) for r in records] == [("message-gate", "error", "uncaught KeyError")]


# What each host sets for a hook it runs. Gemini CLI 0.61.0 (its hookRunner) sets CLAUDE_PROJECT_DIR beside its own
# variables "for compatibility": its hooks had been recorded as Claude Code's.
GEMINI_HOOK_ENV = {
    "GEMINI_PROJECT_DIR": "/p",
    "GEMINI_PLANS_DIR": "/p/.gemini/plans",
    "GEMINI_CWD": "/p",
    "GEMINI_SESSION_ID": "5f0c",
    "CLAUDE_PROJECT_DIR": "/p",
}


@pytest.mark.parametrize(
    ("host_env", "host"),
    [
        (GEMINI_HOOK_ENV, "gemini-cli"),
        ({**GEMINI_HOOK_ENV, "CLAUDECODE": "1"}, "gemini-cli"),  # Gemini run from Claude Code's Bash tool
        ({"CLAUDECODE": "1", "CLAUDE_PROJECT_DIR": "/p"}, "claude-code"),
        ({"CLAUDE_PROJECT_DIR": "/p", "GEMINI_PROJECT_DIR": "/p"}, "claude-code"),  # a user's export, not Gemini's
        ({"CODEX_THREAD_ID": "t1", "CLAUDE_PLUGIN_ROOT": "/x"}, "codex"),
        # What Codex sets for a plugin's hooks (codex-rs/hooks discovery), and what Claude Code sets for its own.
        ({"PLUGIN_ROOT": "/x", "CLAUDE_PLUGIN_ROOT": "/x", "PLUGIN_DATA": "/d", "CLAUDE_PLUGIN_DATA": "/d"}, "codex"),
        ({"CLAUDE_PLUGIN_ROOT": "/x", "CLAUDE_PLUGIN_DATA": "/d", "CLAUDE_PROJECT_DIR": "/p"}, "claude-code"),
        ({"CLAUDE_PLUGIN_ROOT": "/x"}, "claude-code"),
        ({}, None),
    ],
)
def test_the_host_is_told_by_what_it_sets_for_its_hooks(host_env: dict[str, str], host: str | None) -> None:
    assert runner.detect_host(host_env) == host


def test_a_hook_run_by_gemini_cli_is_recorded_as_gemini_clis(memesh_env: Path, tmp_path: Path) -> None:
    env = {
        "MEMESH_DAEMON": "0",
        "MEMESH_DIR": str(memesh_env.parent),
        "MEMESH_DB_PATH": str(memesh_env),
        **GEMINI_HOOK_ENV,
    }
    payload = {"hook_event_name": "BeforeTool", "tool_name": "glob", "tool_input": {"pattern": "*"}}
    _, records = _run("pre-tool-use", payload, env, tmp_path)
    assert [(r["hook"], r["host"], r["reason"]) for r in records] == [("pre-edit", "gemini-cli", "not a file edit")]


def test_the_warm_path_forwards_the_hosts_marks_and_not_geminis_api_key() -> None:
    from memesh.transports.hooks import wire

    block = wire.forwarded(
        {b"GEMINI_SESSION_ID": b"5f0c", b"GEMINI_CWD": b"/p", b"GEMINI_API_KEY": b"k", b"PLUGIN_ROOT": b"/x"}
    )
    assert wire.environment(block) == {"GEMINI_SESSION_ID": "5f0c", "GEMINI_CWD": "/p", "PLUGIN_ROOT": "/x"}
