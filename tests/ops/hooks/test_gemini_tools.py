"""The tool hooks through the door as Gemini CLI (0.61.0) runs them: its tool names (run_shell_command, read_file,
replace, write_file), its events (BeforeTool, AfterTool, AfterAgent) and the answers it reads — a refusal as
`{"decision": "deny", "reason": …}` at BeforeTool, context at AfterTool (appended to the tool's result); context at
BeforeTool would be dropped, so the file memories wait for AfterTool."""

from __future__ import annotations

from typing import Any

import pytest

from memesh.core import triggers
from memesh.hosts import gemini_cli

from .conftest import Hooks

FILE_TOOLS = [("read_file", " (on Read)"), ("replace", ""), ("write_file", "")]


def _outcomes(answer: dict[str, Any]) -> list[tuple[str, str, str | None]]:
    return [(o["hook"], o["outcome"], o.get("reason")) for o in answer["outcomes"]]


def _payload(hooks: Hooks, event: str, tool: str, tool_input: dict[str, Any], **more: Any) -> dict[str, Any]:
    return {
        "session_id": "g1",
        "transcript_path": "",
        "cwd": str(hooks.folder),
        "hook_event_name": event,
        "timestamp": "2026-12-06T00:00:00.000Z",
        "tool_name": tool,
        "tool_input": tool_input,
        **more,
    }


@pytest.mark.parametrize(("tool", "on_read"), FILE_TOOLS)
def test_a_gemini_file_tool_gives_the_files_memories_at_after_tool_and_nothing_at_before_tool(
    hooks: Hooks, tool: str, on_read: str
) -> None:
    hooks.host = "gemini-cli"
    about = hooks.remember("auth-pkce", tags=[f"project:{hooks.project}", "file:auth.py"])
    tool_input = {"file_path": str(hooks.folder / "auth.py"), "old_string": "a", "new_string": "b", "content": "x"}
    before = hooks.answer("pre-tool-use", _payload(hooks, "BeforeTool", tool, tool_input))
    assert "output" not in before
    why = "the host shows no context before a tool runs"
    assert _outcomes(before) == [("pre-edit", "skipped", why)]
    response = {"llmContent": "done", "returnDisplay": "done"}
    after = hooks.answer("pre-tool-use", _payload(hooks, "AfterTool", tool, tool_input, tool_response=response))
    assert set(after["output"]) == {"hookSpecificOutput"}
    specific = after["output"]["hookSpecificOutput"]
    assert specific["hookEventName"] == "AfterTool" and f"[mem:{about}]" in specific["additionalContext"]
    assert _outcomes(after) == [("pre-edit", "notified", f"1 memories about the file{on_read}")]


def test_a_guard_refuses_geminis_shell_command_once_at_before_tool_in_the_form_gemini_reads(hooks: Hooks) -> None:
    hooks.host = "gemini-cli"
    lesson = hooks.remember("lesson-force-push", kind="lesson_learned")
    store = hooks.store()
    try:
        entity = store.find("lesson-force-push")
        assert entity is not None
        guard = {"pattern": r"git\s+push\s+.*--force", "message": "Force-pushing main lost a day of work"}
        with store.transaction():
            store.update_metadata(entity.id, {**entity.metadata, "guard": guard})
    finally:
        store.close()
    push = {"command": "git push origin main --force", "description": "push"}
    first = hooks.answer("pre-tool-use", _payload(hooks, "BeforeTool", "run_shell_command", push))
    output = first["output"]
    assert set(output) == {"decision", "reason", "systemMessage"} and output["decision"] == "deny"
    assert f"Force-pushing main lost a day of work (lesson lesson-force-push) [mem:{lesson}]" in output["reason"]
    assert _outcomes(first) == [("guard", "notified", "1 guards matched; stopped the first attempt")]
    retry = hooks.answer("pre-tool-use", _payload(hooks, "BeforeTool", "run_shell_command", push))
    assert "output" not in retry
    assert _outcomes(retry) == [("guard", "skipped", "1 guards matched; already stopped once in this session")]
    # After the command ran there is nothing left to stop.
    after = hooks.answer("pre-tool-use", _payload(hooks, "AfterTool", "run_shell_command", push))
    assert "output" not in after and _outcomes(after) == [("guard", "skipped", "the command already ran")]


def test_a_commit_run_by_geminis_shell_tool_is_captured_from_what_gemini_reports(hooks: Hooks) -> None:
    hooks.host = "gemini-cli"
    commit = {"command": "git commit -m 'Use WAL'"}
    response = {"llmContent": "Output: [main 1a2b3c4] Use WAL\n 1 file changed", "returnDisplay": "…"}
    payload = _payload(hooks, "AfterTool", "run_shell_command", commit, tool_response=response)
    assert not triggers.plainly_not_a_commit(gemini_cli.normalize("post-tool-use", payload)[0])
    answer = hooks.answer("post-tool-use", payload)
    assert _outcomes(answer) == [("post-commit", "wrote", None)]
    store = hooks.store()
    try:
        stored = store.find("commit-1a2b3c4")
    finally:
        store.close()
    assert stored is not None and stored.title == "Use WAL"
    assert stored.metadata["provenance"]["source_host"] == "gemini-cli"
    status = _payload(hooks, "AfterTool", "run_shell_command", {"command": "git status"}, tool_response=response)
    assert triggers.plainly_not_a_commit(gemini_cli.normalize("post-tool-use", status)[0])


def test_geminis_after_agent_reply_becomes_the_session_handoff(hooks: Hooks) -> None:
    hooks.host = "gemini-cli"
    reply = "Moved the store to WAL and measured the readers; next, the retry policy for the writer, then the docs."
    payload = {
        "session_id": "g1",
        "transcript_path": str(hooks.folder / "session.json"),  # Gemini's own JSON, not Claude Code's JSONL
        "cwd": str(hooks.folder),
        "hook_event_name": "AfterAgent",
        "prompt": "move the store to WAL",
        "prompt_response": reply,
        "stop_hook_active": False,
    }
    answer = hooks.answer("stop", payload)
    assert answer["outcomes"][0] == {
        "hook": "handoff-capture",
        "outcome": "wrote",
        "entity": f"session-handoff:{hooks.project}",
    }
