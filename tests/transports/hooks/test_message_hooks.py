"""The message hooks as Claude Code runs them: the UserPromptSubmit reminder and the separate Stop gate (the commands
hooks/hooks.json names, hook JSON on stdin), and SessionStart's inbox notice — each for the session's declared
recipient only, and honouring intended_session."""

from __future__ import annotations

import json
import subprocess
from datetime import UTC, datetime
from typing import Any

import pytest

from memesh.app.resources import local_router
from memesh.context import CallContext
from tests.calls import call

from .conftest import HOOKS_FILE, HookEnv, HookRun


def _command(event: str, name: str) -> str:
    """The command hooks/hooks.json runs for `event` whose memesh-hook event is `name`."""
    for group in json.loads(HOOKS_FILE.read_text())["hooks"][event]:
        command = str(group["hooks"][0]["command"])
        if command.endswith(f" {name}"):
            return command
    raise LookupError(f"no {event} hook runs {name}")


def _run(env: HookEnv, event: str, name: str, payload: dict[str, Any], **extra_env: str) -> HookRun:
    done = subprocess.run(
        ["sh", "-c", _command(event, name)],
        input=json.dumps(payload).encode(),
        capture_output=True,
        env={**env.env, **extra_env},
        cwd=env.project_dir,
        timeout=60,
        check=False,
    )
    return HookRun(done.returncode, done.stdout.decode(), done.stderr.decode())


def _message(env: HookEnv, action: str, **fields: Any) -> dict[str, Any]:
    ctx = CallContext(
        source_host="test", agent_view=False, now=datetime.now(UTC), project=lambda: env.project, router=local_router
    )
    store = env.store()
    try:
        body = {"action": action, "project": env.project, **fields}
        done = call("message", store, body, ctx)
    finally:
        store.close()
    if fields.get("target_kind") == "session":  # no router here: stored for recovery, reported unreachable
        return dict(done.failure().data)
    out: dict[str, Any] = done.unwrap()
    return out


def _send(env: HookEnv, key: str, **fields: Any) -> str:
    base = {"sender": "lead", "recipient": "reviewer", "idempotency_key": key, "payload": f"task {key}"}
    return str(_message(env, "send", **{**base, **fields})["message_id"])


def _gate(env: HookEnv, session: str, *, active: bool = False, **extra_env: str) -> HookRun:
    payload = {
        "session_id": session,
        "transcript_path": str(env.home / "t.jsonl"),
        "cwd": str(env.project_dir),
        "hook_event_name": "Stop",
        "stop_hook_active": active,
    }
    run = _run(env, "Stop", "stop-gate", payload, **extra_env)
    assert run.returncode == 0, run.stderr
    return run


def _blocked(run: HookRun) -> str:
    answer = run.json()
    assert answer["decision"] == "block"
    return str(answer["reason"])


@pytest.fixture
def reviewer(hook_env: HookEnv) -> HookEnv:
    hook_env.env["MEMESH_RECIPIENT"] = "reviewer"
    return hook_env


def test_the_stop_gate_holds_a_turn_once_per_waiting_message_per_session(reviewer: HookEnv) -> None:
    first = _send(reviewer, "k1")
    reason = _blocked(_gate(reviewer, "s1"))
    assert first in reason and '"reviewer"' in reason and "record intake" in reason and "task k1" not in reason
    assert _gate(reviewer, "s1", active=True).stdout == ""  # this gate already held a turn for it here
    second = _send(reviewer, "k2")
    again = _blocked(_gate(reviewer, "s1", active=True))  # stop_hook_active does not matter for a new id
    assert second in again and first not in again
    other = _blocked(_gate(reviewer, "s2"))  # another session is held for both
    assert first in other and second in other
    _message(reviewer, "intake", recipient="reviewer", message_id=first, idempotency_key="i", intake_state="ingested")
    third = _blocked(_gate(reviewer, "s3"))
    assert first not in third and second in third
    assert [r["outcome"] for r in reviewer.outcomes() if r["hook"] == "message-gate"] == ["notified"] * 4


def test_the_stop_gate_blocks_whether_or_not_a_host_accepted_the_message(reviewer: HookEnv) -> None:
    store = reviewer.store()
    try:
        with store.transaction():
            store.register_session(
                session_id="s1",
                principal_id="reviewer",
                host_kind="claude-code",
                project=reviewer.project,
                work_summary=None,
                lease_expires_at_ms=int(datetime.now(UTC).timestamp() * 1000) + 60_000,
                connected_at="2026-12-01T00:00:00.000Z",
            )
    finally:
        store.close()
    exact = _send(reviewer, "k1", recipient="s1", target_kind="session")  # no router: stored, not host-accepted
    assert exact in _blocked(_gate(reviewer, "s1"))
    assert _gate(reviewer, "s2").stdout == ""  # another session of the principal cannot take s1's message in


def test_a_message_meant_for_one_session_holds_only_that_session(reviewer: HookEnv) -> None:
    meant = _send(reviewer, "k1", intended_session="s1")
    assert _gate(reviewer, "s2").stdout == ""
    assert meant in _blocked(_gate(reviewer, "s1"))


def test_the_stop_gate_does_not_run_under_codex_or_without_a_recipient(hook_env: HookEnv) -> None:
    _send(hook_env, "k1")
    assert _gate(hook_env, "s1").stdout == ""  # no recipient declared: quiet, and nothing recorded
    assert hook_env.outcomes() == []
    hook_env.env["MEMESH_RECIPIENT"] = "reviewer"
    assert _gate(hook_env, "s1", CODEX_THREAD_ID="thread-1").stdout == ""
    assert _blocked(_gate(hook_env, "s1"))  # the Codex run did not spend this session's one hold


def test_a_codex_home_exported_by_the_shell_does_not_turn_claude_codes_gate_off(reviewer: HookEnv) -> None:
    # CODEX_HOME is a user's setting a shell profile exports; Claude Code started from that shell still holds the turn.
    meant = _send(reviewer, "k1")
    assert meant in _blocked(_gate(reviewer, "s1", CODEX_HOME=str(reviewer.home / ".codex")))


def test_under_claude_code_the_channel_config_names_the_recipient(hook_env: HookEnv) -> None:
    hosts = hook_env.home / ".memesh" / "hosts"
    hosts.mkdir(parents=True)
    config = hosts / "claude.json"
    config.write_text(json.dumps({"principal_id": "reviewer", "project": "an-old-field-never-read"}))
    config.chmod(0o644)
    waiting = _send(hook_env, "k1")
    assert _gate(hook_env, "s1").stdout == ""  # a file others can read or write is not the owner's word
    config.chmod(0o600)
    assert waiting in _blocked(_gate(hook_env, "s1"))
    start = hook_env.run("SessionStart", {"session_id": "s9", "cwd": str(hook_env.project_dir)}).json()
    assert '1 message waiting for "reviewer"' in start["hookSpecificOutput"]["additionalContext"]


def _prompt(env: HookEnv, session: str) -> HookRun:
    payload = {"session_id": session, "cwd": str(env.project_dir), "prompt": "go on", "hook_event_name": "x"}
    run = _run(env, "UserPromptSubmit", "user-prompt-submit", payload)
    assert run.returncode == 0, run.stderr
    return run


def test_the_prompt_hook_reminds_until_intake_and_honours_intended_session(reviewer: HookEnv) -> None:
    assert _prompt(reviewer, "s1").stdout == ""
    first = _send(reviewer, "k1")
    meant = _send(reviewer, "k2", intended_session="s1")
    context = _prompt(reviewer, "s1").json()["hookSpecificOutput"]
    assert context["hookEventName"] == "UserPromptSubmit"
    assert "2 messages waiting" in context["additionalContext"] and meant in context["additionalContext"]
    elsewhere = _prompt(reviewer, "s2").json()["hookSpecificOutput"]["additionalContext"]
    assert "1 message waiting" in elsewhere and first in elsewhere and meant not in elsewhere
    _message(reviewer, "fetch", recipient="reviewer", message_id=first)
    assert first in _prompt(reviewer, "s2").stdout  # fetching alone does not end the reminder
    _message(reviewer, "intake", recipient="reviewer", message_id=first, idempotency_key="i", intake_state="fetched")
    assert _prompt(reviewer, "s2").stdout == ""


def test_session_start_counts_a_message_meant_for_this_session_only_here(reviewer: HookEnv) -> None:
    _send(reviewer, "k1", intended_session="s1")
    mine = reviewer.run("SessionStart", {"session_id": "s1", "cwd": str(reviewer.project_dir)}).json()
    assert '1 message waiting for "reviewer"' in mine["hookSpecificOutput"]["additionalContext"]
    other = reviewer.run("SessionStart", {"session_id": "s2", "cwd": str(reviewer.project_dir)})
    assert "waiting for" not in other.stdout
