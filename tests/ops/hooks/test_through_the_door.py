"""The hook events through the door: the gate admits the host's JSON against the event's schema, the operation
answers what the host reads and one outcome record per capture, and what goes wrong is an outcome, not a failure."""

from __future__ import annotations

import json
from typing import Any, get_args

import pytest

from memesh.adapters import hook_outcomes
from memesh.app.operations import all_ops
from memesh.app.operations.hooks import BY_EVENT, OPS
from memesh.core import triggers
from memesh.ops.hooks.answer import Hook, OutcomeName
from memesh.schema import files as schemas

from .conftest import Hooks


def _outcomes(answer: dict[str, Any]) -> list[tuple[str, str, str | None]]:
    return [(o["hook"], o["outcome"], o.get("reason")) for o in answer["outcomes"]]


def test_every_hook_event_is_a_registered_operation_answering_the_one_answer_schema() -> None:
    assert set(OPS) <= set(all_ops())
    assert {op.output_schema for op in OPS} == {"hooks/answer.output"}
    assert {op.input_schema for op in OPS} == {
        f"hooks/{name}.input" for name in ("session_start", "tool_use", "stop", "prompt")
    }
    assert len({op.name for op in OPS}) == len(BY_EVENT) == 7


def test_the_hook_and_outcome_names_are_the_shipped_ones_everywhere() -> None:
    outcome = schemas.load("hooks/answer.output")["$defs"]["outcome"]["properties"]
    assert list(get_args(Hook)) == list(hook_outcomes.HOOKS) == outcome["hook"]["enum"]
    assert list(get_args(OutcomeName)) == list(hook_outcomes.OUTCOMES) == outcome["outcome"]["enum"]


def test_session_start_injects_the_briefing_and_records_what_it_injected(hooks: Hooks) -> None:
    entity_id = hooks.remember("use-wal")
    answer = hooks.answer("session-start", {"session_id": "s1", "cwd": str(hooks.folder)})
    output = answer["output"]
    assert output["hookSpecificOutput"]["hookEventName"] == "SessionStart"
    assert f"[mem:{entity_id}]" in output["hookSpecificOutput"]["additionalContext"]
    assert output["systemMessage"] == "memesh: 1 memory loaded (briefing level minimal)"
    # Nothing adjusted the session limit (the default applies), so nothing says why.
    assert _outcomes(answer) == [("session-start", "notified", "1 memories injected")]
    store = hooks.store()
    try:
        rows = store.conn.execute("SELECT session_id, entity_id, source FROM session_memories").fetchall()
    finally:
        store.close()
    assert rows == [("s1", entity_id, "injected")]


def test_fields_a_host_adds_later_are_accepted(hooks: Hooks) -> None:
    payload = {"session_id": "s1", "cwd": str(hooks.folder), "model": {"id": "x"}, "agent_type": "main"}
    assert _outcomes(hooks.answer("session-start", payload))[-1] == ("session-start", "skipped", "nothing to brief")


def test_hook_json_that_does_not_fit_its_schema_is_refused_by_the_gate_before_anything_runs(hooks: Hooks) -> None:
    error = hooks("stop", {"cwd": str(hooks.folder), "transcript_path": 7}).failure()
    assert error.code == "validation.bad-body"
    assert error.message.startswith("session_id: ") and "transcript_path: " in error.message
    assert not hooks.db.exists()  # refused at the gate: no database was opened


def test_a_database_that_will_not_open_is_an_error_outcome_and_no_output(
    hooks: Hooks, monkeypatch: pytest.MonkeyPatch
) -> None:
    if hooks.backend.postgres:  # a server that is not there
        monkeypatch.setenv("MEMESH_DATABASE_URL", f"postgresql://memesh@/nowhere?host={hooks.folder}/no-socket")
    else:
        hooks.db.mkdir(parents=True)  # a folder where the database file should be
    answer = hooks.answer("session-start", {"session_id": "s1", "cwd": str(hooks.folder)})
    assert "output" not in answer
    assert _outcomes(answer)[-1] == ("session-start", "error", "database unreadable")


def test_an_invalid_declared_recipient_is_an_error_outcome_and_the_briefing_still_arrives(hooks: Hooks) -> None:
    hooks.remember("use-wal")
    hooks.env["MEMESH_RECIPIENT"] = "/home/me/inbox"
    answer = hooks.answer("session-start", {"session_id": "s1", "cwd": str(hooks.folder)})
    outcomes = _outcomes(answer)
    assert outcomes[0] == ("session-start", "error", "MEMESH_RECIPIENT is not a valid recipient")
    assert outcomes[-1] == ("session-start", "notified", "1 memories injected")


def test_an_adjusted_session_limit_says_why_before_the_briefing(hooks: Hooks) -> None:
    hooks.remember("use-wal")
    hooks.env["MEMESH_SESSION_LIMIT"] = "500"
    hook, outcome, reason = _outcomes(hooks.answer("session-start", {"session_id": "s1", "cwd": str(hooks.folder)}))[0]
    assert (hook, outcome) == ("session-start", "notified")
    assert reason == "sessionLimit 500 from MEMESH_SESSION_LIMIT (above 100; the SessionStart hook uses 100)"


def test_before_an_edit_the_files_memories_reach_the_agent(hooks: Hooks) -> None:
    about = hooks.remember("auth-pkce", tags=[f"project:{hooks.project}", "file:auth.py"])
    payload = {
        "session_id": "s1",
        "cwd": str(hooks.folder),
        "tool_name": "Edit",
        "tool_input": {"file_path": "auth.py"},
    }
    answer = hooks.answer("pre-tool-use", payload)
    assert f"[mem:{about}]" in answer["output"]["hookSpecificOutput"]["additionalContext"]
    assert _outcomes(answer) == [("pre-edit", "notified", "1 memories about the file")]


@pytest.mark.parametrize(
    ("tool_input", "outcome"),
    [
        ({"file_path": "/etc/passwd"}, ("pre-edit", "error", "path outside the project")),
        ({}, ("pre-edit", "error", "no file path in the tool input")),
    ],
)
def test_an_edit_the_hook_cannot_place_is_an_error_outcome(
    hooks: Hooks, tool_input: dict[str, Any], outcome: tuple[str, str, str]
) -> None:
    payload = {"cwd": str(hooks.folder), "tool_name": "Write", "tool_input": tool_input}
    assert _outcomes(hooks.answer("pre-tool-use", payload)) == [outcome]


def test_a_read_gives_the_files_memories_once_and_the_edit_after_it_gives_them_no_more(hooks: Hooks) -> None:
    about = hooks.remember("auth-pkce", tags=[f"project:{hooks.project}", "file:auth.py"])
    # SessionStart injected it already: the file's first Read still gives it, for the file.
    store = hooks.store()
    try:
        store.record_session_memories("s1", [about], "injected", "2026-12-06T00:00:00.000Z")
    finally:
        store.close()
    read = {"session_id": "s1", "cwd": str(hooks.folder), "tool_name": "Read", "tool_input": {"file_path": "auth.py"}}
    edit = {**read, "tool_name": "Edit"}
    answer = hooks.answer("pre-tool-use", read)
    assert f"[mem:{about}]" in answer["output"]["hookSpecificOutput"]["additionalContext"]
    assert _outcomes(answer) == [("pre-edit", "notified", "1 memories about the file (on Read)")]
    given = ("pre-edit", "skipped", "the file's memories were already given in this session")
    assert _outcomes(hooks.answer("pre-tool-use", read)) == [given]
    assert _outcomes(hooks.answer("pre-tool-use", edit)) == [given]


def test_a_tool_that_is_neither_a_read_an_edit_nor_bash_is_skipped(hooks: Hooks) -> None:
    answer = hooks.answer("pre-tool-use", {"tool_name": "Glob", "tool_input": {"pattern": "*.py"}})
    assert _outcomes(answer) == [("pre-edit", "skipped", "not a file edit")]


def test_a_bash_call_that_is_not_a_commit_is_skipped_as_not_triggered(hooks: Hooks) -> None:
    answer = hooks.answer("post-tool-use", {"tool_name": "Bash", "tool_input": {"command": "git status"}})
    assert _outcomes(answer) == [("post-commit", "skipped", triggers.NOT_A_COMMIT)]


def test_a_commit_with_autocapture_off_is_skipped(hooks: Hooks) -> None:
    hooks.env["MEMESH_AUTO_CAPTURE"] = "false"
    payload = {"tool_name": "Bash", "tool_input": {"command": "git commit -m x"}, "tool_response": "[main 1a2b3c4] x"}
    assert _outcomes(hooks.answer("post-tool-use", payload)) == [("post-commit", "skipped", "autoCapture is off")]


def test_stop_over_an_unreadable_transcript_records_each_part(hooks: Hooks) -> None:
    payload = {"session_id": "s1", "cwd": str(hooks.folder), "transcript_path": "missing.jsonl"}
    answer = hooks.answer("stop", payload)
    assert "output" not in answer
    assert _outcomes(answer) == [
        ("handoff-capture", "error", "transcript unreadable"),
        ("session-summary", "error", "transcript unreadable"),
        ("citation-credit", "skipped", "no new citation of an injected or recalled memory"),
    ]


def test_stop_takes_a_relative_transcript_path_from_the_hooks_folder(hooks: Hooks) -> None:
    reply = "Moved the store to WAL and measured the readers; next, the retry policy for the writer, then the docs."
    line = {"type": "assistant", "message": {"role": "assistant", "content": [{"type": "text", "text": reply}]}}
    (hooks.folder / "t.jsonl").write_text(json.dumps(line) + "\n")
    answer = hooks.answer("stop", {"session_id": "s1", "transcript_path": "t.jsonl"})
    assert answer["outcomes"][0] == {
        "hook": "handoff-capture",
        "outcome": "wrote",
        "entity": f"session-handoff:{hooks.project}",
    }


def test_pre_compact_with_autocapture_off_is_skipped(hooks: Hooks) -> None:
    hooks.env["MEMESH_AUTO_CAPTURE"] = "0"
    answer = hooks.answer("pre-compact", {"session_id": "s1", "transcript_path": "t.jsonl"})
    assert _outcomes(answer) == [("pre-compact", "skipped", "autoCapture is off")]


def test_the_message_hooks_are_quiet_without_a_recipient(hooks: Hooks) -> None:
    for event in ("user-prompt-submit", "stop-gate"):
        payload: dict[str, Any] = {"session_id": "s1", "transcript_path": "t.jsonl"}
        assert hooks.answer(event, payload) == {"outcomes": []}


def test_the_stop_gate_is_claude_codes_alone(hooks: Hooks) -> None:
    hooks.env["MEMESH_RECIPIENT"] = "/not/a/recipient"  # would be an error outcome under Claude Code
    hooks.host = "codex"
    assert hooks.answer("stop-gate", {"session_id": "s1", "transcript_path": "t.jsonl"}) == {"outcomes": []}
    hooks.host = "claude-code"
    answer = hooks.answer("stop-gate", {"session_id": "s1", "transcript_path": "t.jsonl"})
    assert _outcomes(answer) == [("message-gate", "error", "MEMESH_RECIPIENT is not a valid recipient")]
