"""GitHub Copilot CLI (npm @github/copilot): hooks from the repository's `.github/hooks/*.json` (`memesh setup` writes
`.github/hooks/memesh.json`), MCP servers from ~/.copilot/mcp-config.json (`copilot mcp add`).

Read from its published hooks reference (docs.github.com, "GitHub Copilot CLI hooks reference"):
- Events, in camelCase: sessionStart, sessionEnd, userPromptSubmitted, preToolUse, postToolUse, agentStop,
  preCompact, errorOccurred …; their payloads use camelCase fields (`sessionId`, `timestamp` in ms, `cwd`, `toolName`,
  `toolArgs`, `toolResult.textResultForLlm`, `transcriptPath`). Configured under the PascalCase names of Claude Code,
  the payloads use the snake_case fields of the VS Code extension (`session_id`, `tool_name`, `tool_input`,
  `tool_result.text_result_for_llm`, `transcript_path`), read here too.
- Tools: `bash` / `powershell` (a shell command: `command`), `view` (a read: `path`), `edit` and `create` (edits:
  `path`); `toolArgs` may come as a JSON string.
- Outputs read: preToolUse's `{"permissionDecision": "deny", "permissionDecisionReason": …}` (the reason is shown
  to the agent), agentStop's `{"decision": "block", "reason": …}` (another turn with the reason as its prompt), and
  `additionalContext` from sessionStart, userPromptSubmitted, preToolUse and postToolUse: the reference page lists
  no output for them, but the CLI package (1.0.102) ships the SDK's hook types with `additionalContext` on each
  (copilot-sdk/types.d.ts) and its changelog says session-start hooks' additional context is combined and
  userPromptSubmitted's reaches the model-facing prompt.
Detection: the camelCase payload fields, or MEMESH_HOST=copilot-cli (which the hooks file `memesh setup` writes sets
for each hook, since the snake_case payloads look like Claude Code's).
"""

from __future__ import annotations

import json

from memesh.hosts import EDIT, OTHER, READ, SHELL, STOP_EVENTS, TOOL_EVENTS, canonical, capabilities, tool

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

    from memesh.generated.hooks.answer_output import Output

ID = "copilot-cli"
NAME = "GitHub Copilot CLI"
ENV_MARKS: tuple[tuple[int, tuple[str, ...]], ...] = ()
PAYLOAD_MARKS = ("sessionId", "toolName", "toolArgs")
SESSION_ENV: tuple[str, ...] = ()
EVENTS = {
    "sessionStart": "session-start",
    "preToolUse": "pre-tool-use",
    "postToolUse": "post-tool-use",
    "agentStop": "stop",
}
NATIVE = {"stop-gate": "agentStop", "user-prompt-submit": "userPromptSubmitted", "pre-compact": "preCompact"}
NATIVE.update({event: native for native, event in EVENTS.items()})
TOOLS = {"bash": SHELL, "powershell": SHELL, "view": READ, "edit": EDIT, "create": EDIT}
CAPABILITIES = capabilities(
    context_at_start=True, context_before_tool=True, context_after_tool=True, can_deny=True, holds_turn=True
)
HOOKS_CONFIG = (".github/hooks/memesh.json",)
MCP_CONFIG = ("~/.copilot/mcp-config.json (copilot mcp add)",)


def _field(payload: Mapping[str, Any], camel: str, snake: str) -> Any:
    return payload[camel] if camel in payload else payload.get(snake)


def _arguments(given: object) -> object:
    if isinstance(given, str):  # toolArgs as the model wrote them
        try:
            return json.loads(given)
        except ValueError:
            return given
    return given


def _result_text(payload: Mapping[str, Any]) -> str | None:
    result = _field(payload, "toolResult", "tool_result")
    if isinstance(result, dict):
        text = result.get("textResultForLlm", result.get("text_result_for_llm"))
        return text if isinstance(text, str) else None
    return result if isinstance(result, str) else None


def normalize(event: str, payload: Mapping[str, Any]) -> tuple[dict[str, Any], str]:
    named = payload.get("hook_event_name")
    native = named if isinstance(named, str) and named else NATIVE.get(event, "")
    folder = payload.get("cwd", payload.get("workingDirectory"))  # the SDK's name of the same field
    fields: dict[str, Any] = {"session_id": _field(payload, "sessionId", "session_id"), "cwd": folder}
    if event in TOOL_EVENTS:
        name, given = _field(payload, "toolName", "tool_name"), _arguments(_field(payload, "toolArgs", "tool_input"))
        if isinstance(name, str) and name and isinstance(given, dict):
            fields["tool"] = tool(
                TOOLS.get(name, OTHER), name, command=given.get("command"), path=given.get("path"),
                output=_result_text(payload),
            )  # fmt: skip
        elif name is not None:
            fields["tool"] = {"name": name}  # the gate refuses it, saying what is missing
        fields["moment"] = "before" if event == "pre-tool-use" else "after"
    elif event in STOP_EVENTS:
        fields["transcript_path"] = _field(payload, "transcriptPath", "transcript_path")
    elif event == "user-prompt-submit":
        fields["prompt"] = payload.get("prompt")
    return canonical(CAPABILITIES, **fields), native


def render(native_event: str, output: Output) -> dict[str, Any] | None:
    """What Copilot CLI reads: a denied tool call with its reason, a held turn, context for the agent (it has no line
    for the person)."""
    if "deny" in output:
        return {"permissionDecision": "deny", "permissionDecisionReason": output["deny"]}
    if "block" in output:
        return {"decision": "block", "reason": output["block"]}
    if "context" in output:
        return {"additionalContext": output["context"]}
    return None
