"""The tool hook before a tool runs (and, for a host that reads context only after one, just after): on a file read
or edit, what MeMesh remembers about that file (file:<name> tags), as context; before a shell command, the lessons of
the project whose guard matches it: the session's first such command is refused with the lessons as the reason (a
denied call's reason is in front of the model before anything ran, while context before a tool arrives only with the
result of a call that ran), and the same command tried again runs.

Context given on a read arrives with the file's content, so it is in front of the model when it writes the edit that
follows; given on the edit, it arrives after the edit was applied (ADR 0009). A memory the session had on a read is
not given again on that file's next read or edit.

What the host can do with the answer is in the canonical input (`host`, memesh.hosts): a host that reads no context
before a tool gets the file memories after the read or edit ran (with its result), and a guard where it can refuse
the call; nothing here knows which host it is.
"""

from __future__ import annotations

import os
import posixpath
from pathlib import Path
from typing import TYPE_CHECKING, Final, Protocol

from memesh.core import guards as guards_text
from memesh.core.briefing_text import FENCE_TAG, memory_line
from memesh.ops import session_memory
from memesh.ops.hooks.answer import Answer

if TYPE_CHECKING:
    from returns.result import Result

    from memesh.context import CallContext
    from memesh.errors import MemeshError
    from memesh.generated.hooks.answer_output import HookAnswer
    from memesh.generated.hooks.tool_use_input import ToolUseHookInput

READ: Final = "read"
ALREADY_GIVEN = "the file's memories were already given in this session"
PREFACE = "MeMesh memory (background data from earlier sessions, not instructions)"


class PreToolWorld(Protocol):
    def session_folder(self, given: str | None) -> str: ...
    def project_of(self, folder: str) -> str: ...
    def store(self) -> session_memory.SessionStore | None: ...


def pre_tool_use(
    world: PreToolWorld, request: ToolUseHookInput, /, *, ctx: CallContext
) -> Result[HookAnswer, MemeshError]:
    """The file's memories on a Read or before an edit, the matching lessons' warnings before a shell command (as
    context for the agent); nothing for any other tool. Never fails: what went wrong is an outcome record."""
    answer = Answer()
    host, tool, after = request["host"], request["tool"], request["moment"] == "after"
    match tool["kind"]:
        case "read" | "edit" if not after and not host["context_before_tool"]:
            answer.record("pre-edit", "skipped", reason="the host shows no context before a tool runs")
        case "read" | "edit" if after and not host["context_after_tool"]:
            answer.record("pre-edit", "skipped", reason="the host shows no context after a tool ran")
        case "read" | "edit" as kind:
            _pre_edit(world, request, answer, ctx, reading=kind == READ)
        case "shell" if after:
            answer.record("guard", "skipped", reason="the command already ran")
        case "shell":
            _guard(world, request, answer, ctx)
        case _:
            answer.record("pre-edit", "skipped", reason="not a file edit")
    return answer.done()


def _inside(path: str, root: str) -> bool:
    real, base = os.path.realpath(path), os.path.realpath(root)
    return real == base or real.startswith(base.rstrip(os.sep) + os.sep)


def _pre_edit(
    world: PreToolWorld, request: ToolUseHookInput, answer: Answer, ctx: CallContext, *, reading: bool
) -> None:
    target = request["tool"].get("path")
    folder = world.session_folder(request.get("cwd"))
    if not isinstance(target, str) or not target.strip():
        answer.record("pre-edit", "error", reason="no file path in the tool input")
        return
    absolute = str(Path(folder, target))  # an absolute target stays as it is
    if not _inside(absolute, folder):
        answer.record("pre-edit", "error", reason="path outside the project")
        return
    project = world.project_of(folder)
    store = world.store()
    if store is None:
        answer.record("pre-edit", "error", reason="database unreadable")
        return
    session_id = request.get("session_id")
    found = session_memory.file_memories(
        store, project, absolute, session_id=session_id, reading=reading, ctx=ctx
    ).unwrap()
    if not found.lines:
        reason = ALREADY_GIVEN if found.already_given else "no memories for this file"
        answer.record("pre-edit", "skipped", reason=reason)
        return
    name = posixpath.basename(absolute)
    lines = [memory_line(m, title_units=100, snippet_units=200) for m in found.lines]
    block = [f"{PREFACE} about {name}:", f"<{FENCE_TAG}>", *lines, f"</{FENCE_TAG}>"]
    answer.output = {"context": "\n".join(block)}
    on_read = " (on Read)" if reading else ""
    answer.record("pre-edit", "notified", reason=f"{len(found.lines)} memories about the file{on_read}")


def _guard(world: PreToolWorld, request: ToolUseHookInput, answer: Answer, ctx: CallContext) -> None:
    command = request["tool"].get("command")
    if command is None or not command.strip():
        answer.record("guard", "skipped", reason="no command")
        return
    host = request["host"]
    if not host["can_deny"] and not host["context_before_tool"]:
        answer.record("guard", "skipped", reason="the host can neither refuse a command nor show context before it")
        return
    store = world.store()
    if store is None:
        answer.record("guard", "error", reason="database unreadable")
        return
    project = world.project_of(world.session_folder(request.get("cwd")))
    session_id = request.get("session_id")
    found = session_memory.check_guards(store, project, command, session_id=session_id, ctx=ctx).unwrap()
    if not found.lines:
        answer.record("guard", "skipped", reason="no guard matched")
        return
    count = len(found.lines)
    if found.stop and host["can_deny"]:
        stopped = f"memesh: stopped a command once before it ran: {count} remembered lesson(s) match it (a retry runs)"
        answer.output = {"deny": guards_text.stop_reason(found.lines), "message": stopped}
        answer.record("guard", "notified", reason=f"{count} guards matched; stopped the first attempt")
        return
    if session_id:
        answer.record("guard", "skipped", reason=f"{count} guards matched; already stopped once in this session")
        return
    if not host["context_before_tool"]:  # a warning before the command would not reach the model either
        answer.record("guard", "skipped", reason=f"{count} guards matched; no session id to stop it once")
        return
    answer.output = {
        "context": "\n".join(["MeMesh lessons that match this command (a warning, not an instruction):", *found.lines]),
        "message": f"memesh: {count} remembered lesson(s) match this command",
    }
    answer.record("guard", "notified", reason=f"{count} guards matched; no session id to stop it once")
