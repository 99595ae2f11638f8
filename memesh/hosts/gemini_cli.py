"""Gemini CLI (0.61.0, read from its own package and seen in tests/transports/test_gemini_cli.py): hooks in
~/.gemini/settings.json (the README's block), its own events and tool names, a Claude-like payload.

Detection: GEMINI_SESSION_ID with GEMINI_CWD, which it sets for its hooks alone; it sets CLAUDE_PROJECT_DIR beside them
"for compatibility", so its marks outrank Claude Code's.
Events: SessionStart, BeforeTool, AfterTool, AfterAgent (its turn's end, with the reply as `prompt_response`).
Tools: `run_shell_command`, `read_file`, `replace`, `write_file`; their inputs carry Claude Code's fields (`command`;
`file_path`); a shell command's output is `llmContent` ("Output: <what it printed>\\n…").
Answers: BeforeTool refuses a call with `{"decision": "deny", "reason": …}` (the model reads `Tool execution blocked:
<reason>`) and drops any context; AfterTool's `hookSpecificOutput.additionalContext` is appended to the tool's
result; SessionStart's is put in front of the prompt.
"""

from __future__ import annotations

from memesh.hosts import AFTER, BEFORE, EDIT, READ, SHELL, capabilities, claude_code, moment_of

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

    from memesh.generated.hooks.answer_output import Output

ID = "gemini-cli"
NAME = "Gemini CLI"
ENV_MARKS = ((20, ("GEMINI_SESSION_ID", "GEMINI_CWD")),)
PAYLOAD_MARKS: tuple[str, ...] = ()
SESSION_ENV: tuple[str, ...] = ()  # not read by MCP or the CLI (it was not before the hosts had modules)
EVENTS = {
    "SessionStart": "session-start",
    "BeforeTool": "pre-tool-use",
    "AfterTool": "pre-tool-use",  # file memories (with the tool's result); post-tool-use for a shell command
    "AfterAgent": "stop",
}
TOOLS = {"run_shell_command": SHELL, "read_file": READ, "replace": EDIT, "write_file": EDIT}
CAPABILITIES = capabilities(context_at_start=True, context_after_tool=True, can_deny=True, work_packages=True)
HOOKS_CONFIG = ("~/.gemini/settings.json (the README's hooks block)",)
MCP_CONFIG = ("~/.gemini/settings.json (gemini mcp add)",)
MOMENTS = {"BeforeTool": BEFORE, "AfterTool": AFTER}


def printed(response: object) -> str | None:
    """What run_shell_command printed: Claude Code's members, and Gemini's `llmContent` after its "Output: "."""
    found = claude_code.printed(response)
    content = response.get("llmContent") if isinstance(response, dict) else None
    if isinstance(content, str):
        found = (found or "") + "\n" + content.removeprefix("Output: ")
    return found


def normalize(event: str, payload: Mapping[str, Any]) -> tuple[dict[str, Any], str]:
    named = payload.get("hook_event_name")
    native = named if isinstance(named, str) and named in EVENTS else claude_code.native_event(event, payload)
    reply = payload.get("prompt_response", payload.get("last_assistant_message"))
    found = claude_code.normalize_as(
        event,
        payload,
        tools={**claude_code.TOOLS, **TOOLS},
        host=CAPABILITIES,
        moment=MOMENTS.get(native, moment_of(event)),
        reply=reply,
        output=printed(payload.get("tool_response")),
    )
    return found, native


def render(native_event: str, output: Output) -> dict[str, Any] | None:
    """Gemini CLI's answer: a refusal in its own form; context under the event's name, as Claude Code's."""
    if "deny" in output:
        refused: dict[str, Any] = {"decision": "deny", "reason": output["deny"]}
        if "message" in output:
            refused["systemMessage"] = output["message"]
        return refused
    return claude_code.render(native_event, output)
