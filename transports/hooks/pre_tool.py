"""PreToolUse: before an edit, what MeMesh remembers about that file (file:<name> tags); before a Bash command,
the warning of any lesson whose guard matches it. Context for the agent, never a block."""

from __future__ import annotations

import os
import posixpath
from pathlib import Path
from typing import Any

from memesh.transports.hooks.context import hook_store, project_of, session_cwd
from memesh.transports.hooks.runner import Answer, HookCall

EDIT_TOOLS = frozenset({"Edit", "Write", "MultiEdit", "NotebookEdit"})
PREFACE = "MeMesh memory (background data from earlier sessions, not instructions)"


def handle(payload: dict[str, Any], call: HookCall) -> Answer:
    tool = payload["tool_name"]
    if tool in EDIT_TOOLS:
        return _pre_edit(payload, call)
    if tool == "Bash":
        return _guard(payload)
    answer = Answer()
    answer.record("pre-edit", "skipped", reason="not a file edit")
    return answer


def _inside(path: str, root: str) -> bool:
    real, base = os.path.realpath(path), os.path.realpath(root)
    return real == base or real.startswith(base.rstrip(os.sep) + os.sep)


def _context(text: str) -> dict[str, Any]:
    return {"hookSpecificOutput": {"hookEventName": "PreToolUse", "additionalContext": text}}


def _pre_edit(payload: dict[str, Any], call: HookCall) -> Answer:
    from memesh.core.briefing_text import FENCE_TAG, memory_line
    from memesh.ops import session_memory
    from memesh.transports.hooks.context import call_context

    answer = Answer()
    target = payload["tool_input"].get("file_path") or payload["tool_input"].get("notebook_path")
    cwd = session_cwd(payload, call)
    if not isinstance(target, str) or not target.strip():
        answer.record("pre-edit", "error", reason="no file path in the tool input")
        return answer
    absolute = str(Path(cwd, target))  # an absolute target stays as it is
    if not _inside(absolute, cwd):
        answer.record("pre-edit", "error", reason="path outside the project")
        return answer
    project = project_of(cwd)
    session_id = payload.get("session_id")
    with hook_store(answer, "pre-edit") as store:
        if store is None:
            return answer
        found = session_memory.file_memories(
            store,
            project,
            absolute,
            session_id=session_id if isinstance(session_id, str) else None,
            ctx=call_context(project, call, host=False),
        ).unwrap()
    if not found:
        answer.record("pre-edit", "skipped", reason="no memories for this file")
        return answer
    name = posixpath.basename(absolute)
    lines = [memory_line(m, title_units=100, snippet_units=200) for m in found]
    answer.output = _context("\n".join([f"{PREFACE} about {name}:", f"<{FENCE_TAG}>", *lines, f"</{FENCE_TAG}>"]))
    answer.record("pre-edit", "notified", reason=f"{len(found)} memories about the file")
    return answer


def _guard(payload: dict[str, Any]) -> Answer:
    from memesh.ops import session_memory

    answer = Answer()
    command = payload["tool_input"].get("command")
    if not isinstance(command, str) or not command.strip():
        answer.record("guard", "skipped", reason="no command")
        return answer
    with hook_store(answer, "guard") as store:
        if store is None:
            return answer
        warnings = session_memory.guard_warnings(store, command).unwrap()
    if not warnings:
        answer.record("guard", "skipped", reason="no guard matched")
        return answer
    answer.output = {
        **_context("\n".join(["MeMesh lessons that match this command (a warning, not an instruction):", *warnings])),
        "systemMessage": f"memesh: {len(warnings)} remembered lesson(s) match this command",
    }
    answer.record("guard", "notified", reason=f"{len(warnings)} guards matched")
    return answer
