"""Cursor: hooks in `.cursor/hooks.json` (the project's) and `~/.cursor/hooks.json` (the user's), MCP servers in
`.cursor/mcp.json` / `~/.cursor/mcp.json`. Its CLI cannot be installed from the registries here: what is below is read
from its published hooks documentation (cursor.com/docs/agent/hooks) and the payloads recorded from it under
tests/fixtures/hosts/cursor/.

- Every payload carries `hook_event_name` (camelCase), `conversation_id`, `generation_id`, `workspace_roots` and
  (optionally) `cursor_version`, `model`, `user_email`: the conversation is the session, the first workspace root the
  folder when the event names no `cwd`.
- Events: sessionStart (its `additional_context` output reaches the agent), beforeShellExecution (`command`, `cwd`;
  answered `{"permission": "deny", "user_message": …, "agent_message": …}`), afterShellExecution (`command`,
  `output`), beforeReadFile (`file_path`; answered with a permission only), afterFileEdit (`file_path`, `edits`;
  nothing read), afterAgentResponse (`text`: the agent's reply), beforeSubmitPrompt (`prompt`; answered with
  `continue` only), preCompact, stop (`status`, `loop_count`; a `followup_message` starts another turn).
- No context reaches the agent before or after a tool, so file memories are not given under Cursor.
Detection: `cursor_version` or `conversation_id` in the payload.
"""

from __future__ import annotations

from memesh.hosts import EDIT, OTHER, READ, SHELL, canonical, capabilities, tool

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

    from memesh.generated.hooks.answer_output import Output

ID = "cursor"
NAME = "Cursor"
ENV_MARKS: tuple[tuple[int, tuple[str, ...]], ...] = ()
PAYLOAD_MARKS = ("cursor_version", "conversation_id")
SESSION_ENV: tuple[str, ...] = ()
EVENTS = {
    "sessionStart": "session-start",
    "beforeShellExecution": "pre-tool-use",
    "afterShellExecution": "post-tool-use",
    "afterAgentResponse": "stop",
}
NATIVE = {
    "pre-compact": "preCompact",
    "stop-gate": "stop",
    "user-prompt-submit": "beforeSubmitPrompt",
    **{event: native for native, event in EVENTS.items()},
}
# Cursor's events about a tool → the kind of tool and when the hook runs.
TOOL_EVENTS = {
    "beforeShellExecution": (SHELL, "before"),
    "afterShellExecution": (SHELL, "after"),
    "beforeReadFile": (READ, "before"),
    "afterFileEdit": (EDIT, "after"),
}
TOOLS = {"Shell": SHELL, "Read": READ, "Write": EDIT, "Edit": EDIT}
CAPABILITIES = capabilities(context_at_start=True, can_deny=True, holds_turn=True)
HOOKS_CONFIG = (".cursor/hooks.json", "~/.cursor/hooks.json")
MCP_CONFIG = (".cursor/mcp.json", "~/.cursor/mcp.json")


def _folder(payload: Mapping[str, Any]) -> object:
    if "cwd" in payload:
        return payload["cwd"]
    roots = payload.get("workspace_roots")
    return roots[0] if isinstance(roots, list) and roots else None


def normalize(event: str, payload: Mapping[str, Any]) -> tuple[dict[str, Any], str]:
    named = payload.get("hook_event_name")
    native = named if isinstance(named, str) and named else NATIVE.get(event, "")
    session = payload.get("session_id", payload.get("conversation_id"))
    fields: dict[str, Any] = {"session_id": session, "cwd": _folder(payload)}
    if event in ("pre-tool-use", "post-tool-use"):
        kind, moment = TOOL_EVENTS.get(native, (OTHER, "before" if event == "pre-tool-use" else "after"))
        name = payload.get("tool_name", native)
        output = payload.get("output")
        fields["tool"] = tool(kind, name, command=payload.get("command"), path=payload.get("file_path"), output=output)
        fields["moment"] = moment
    elif event in ("stop", "pre-compact", "stop-gate"):
        fields["transcript_path"] = payload.get("transcript_path")
        fields["last_reply"] = payload.get("text")  # afterAgentResponse
    elif event == "user-prompt-submit":
        fields["prompt"] = payload.get("prompt")
    return canonical(CAPABILITIES, **fields), native


def render(native_event: str, output: Output) -> dict[str, Any] | None:
    """What Cursor reads: a refused command (the person's line and the agent's reason), the session's context, a
    follow-up turn; nothing else."""
    if "deny" in output:
        return {
            "permission": "deny",
            "user_message": output.get("message", output["deny"]),
            "agent_message": output["deny"],
        }
    if "block" in output:
        return {"followup_message": output["block"]}
    if "context" in output and native_event == "sessionStart":
        return {"additional_context": output["context"]}
    return None
