"""Claude Code: the host MeMesh's hooks were first written for (hooks/hooks.json, the plugin; or `memesh setup`'s
entries in ~/.claude/settings.json). Codex loads the same hooks file and speaks the same protocol (memesh.hosts.codex).

Detection: CLAUDECODE or CLAUDE_PROJECT_DIR, which Claude Code sets for every hook it runs; CLAUDE_PLUGIN_ROOT last,
since a host loading the plugin's shared hook file may set it too.
Payloads: `session_id`, `cwd`, `transcript_path`, `hook_event_name`; tools as `tool_name` / `tool_input` /
`tool_response`; Stop's `last_assistant_message`. Answers: `hookSpecificOutput` (`additionalContext`, or PreToolUse's
`permissionDecision: deny` with its reason, the one output the model sees before the tool runs), `systemMessage`
for the person, and Stop's `{"decision": "block", "reason": …}`.
"""

from __future__ import annotations

from memesh.hosts import (
    EDIT,
    OTHER,
    READ,
    SHELL,
    STOP_EVENTS,
    TOOL_EVENTS,
    canonical,
    capabilities,
    moment_of,
    tool,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

    from memesh.generated.hooks.answer_output import Output

ID = "claude-code"
NAME = "Claude Code"
ENV_MARKS = ((30, ("CLAUDECODE",)), (31, ("CLAUDE_PROJECT_DIR",)), (50, ("CLAUDE_PLUGIN_ROOT",)))
PAYLOAD_MARKS: tuple[str, ...] = ()
SESSION_ENV = ("CLAUDE_CODE_SESSION_ID",)
# Its events → memesh-hook's (hooks/hooks.json; the Stop gate is a second Stop hook).
EVENTS = {
    "SessionStart": "session-start",
    "UserPromptSubmit": "user-prompt-submit",
    "PreToolUse": "pre-tool-use",
    "PostToolUse": "post-tool-use",
    "Stop": "stop",
    "PreCompact": "pre-compact",
}
NATIVE = {"stop-gate": "Stop", **{event: native for native, event in EVENTS.items()}}
TOOLS = {
    "Bash": SHELL,
    "Read": READ,
    "Edit": EDIT,
    "Write": EDIT,
    "MultiEdit": EDIT,
    "NotebookEdit": EDIT,
}
CAPABILITIES = capabilities(
    context_at_start=True,
    context_before_tool=True,
    context_after_tool=True,
    can_deny=True,
    holds_turn=True,
    channel=True,
    work_packages=True,
)
HOOKS_CONFIG = ("hooks/hooks.json (the plugin)", "~/.claude/settings.json")
MCP_CONFIG = ("~/.claude.json (claude mcp add)",)


def printed(response: object) -> str | None:
    """What a shell tool printed, as Claude Code reports it (a string, or stdout/stderr/output members)."""
    if isinstance(response, str):
        return response
    if isinstance(response, dict):
        return "\n".join(str(response.get(key) or "") for key in ("stdout", "stderr", "output"))
    return None


def normalize_as(
    event: str,
    payload: Mapping[str, Any],
    *,
    tools: Mapping[str, str],
    host: Mapping[str, bool],
    moment: str,
    reply: object,
    output: str | None,
) -> dict[str, Any]:
    """The canonical input of a payload in Claude Code's shape (shared by the hosts that speak it)."""
    fields: dict[str, Any] = {"session_id": payload.get("session_id"), "cwd": payload.get("cwd")}
    if event in TOOL_EVENTS:
        name, given = payload.get("tool_name"), payload.get("tool_input")
        if isinstance(name, str) and name and isinstance(given, dict):
            path = given.get("file_path") or given.get("notebook_path")
            fields["tool"] = tool(tools.get(name, OTHER), name, command=given.get("command"), path=path, output=output)
        elif name is not None or given is not None:
            fields["tool"] = {"name": name}  # the gate refuses it, saying what is missing
        fields["moment"] = moment
    elif event in STOP_EVENTS:
        fields["transcript_path"] = payload.get("transcript_path")
        fields["last_reply"] = reply
    elif event == "user-prompt-submit":
        fields["prompt"] = payload.get("prompt")
    return canonical(host, **fields)


def native_event(event: str, payload: Mapping[str, Any]) -> str:
    """Claude Code's name of memesh-hook's event (its hooks file says which event runs which; the payload's
    hook_event_name is not trusted to name it)."""
    return NATIVE.get(event, "")


def normalize(event: str, payload: Mapping[str, Any]) -> tuple[dict[str, Any], str]:
    native = native_event(event, payload)
    found = normalize_as(
        event,
        payload,
        tools=TOOLS,
        host=CAPABILITIES,
        moment=moment_of(event),
        reply=payload.get("last_assistant_message"),
        output=printed(payload.get("tool_response")),
    )
    return found, native


def render(native_event: str, output: Output) -> dict[str, Any] | None:
    """Claude Code's answer: the held turn; or the denied call, or context under the event's name; and a line for
    the person."""
    if "block" in output:
        return {"decision": "block", "reason": output["block"]}
    answer: dict[str, Any] = {}
    if "deny" in output:
        answer["hookSpecificOutput"] = {
            "hookEventName": "PreToolUse",
            "permissionDecision": "deny",
            "permissionDecisionReason": output["deny"],
        }
    elif "context" in output:
        answer["hookSpecificOutput"] = {"hookEventName": native_event, "additionalContext": output["context"]}
    if "message" in output:
        answer["systemMessage"] = output["message"]
    return answer or None
