"""A hook run by a host MeMesh cannot tell: its payload is read in Claude Code's shape (the shape the shipped hooks
file speaks) with every host's tool names, and it is answered as Claude Code is; it does not hold a turn and has no
memesh-channel, since neither may be assumed of a host that is not known."""

from __future__ import annotations

from memesh.hosts import capabilities, claude_code, copilot_cli, cursor, gemini_cli

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

ID = ""
NAME = "an unknown host"
ENV_MARKS: tuple[tuple[int, tuple[str, ...]], ...] = ()
PAYLOAD_MARKS: tuple[str, ...] = ()
SESSION_ENV: tuple[str, ...] = ()
EVENTS = claude_code.EVENTS
TOOLS = {**claude_code.TOOLS, **gemini_cli.TOOLS, **copilot_cli.TOOLS, **cursor.TOOLS}
CAPABILITIES = capabilities(
    context_at_start=True, context_before_tool=True, context_after_tool=True, can_deny=True, work_packages=True
)
HOOKS_CONFIG: tuple[str, ...] = ()
MCP_CONFIG: tuple[str, ...] = ()


def normalize(event: str, payload: Mapping[str, Any]) -> tuple[dict[str, Any], str]:
    named = payload.get("hook_event_name")
    native = (
        named if isinstance(named, str) and named in gemini_cli.EVENTS else claude_code.native_event(event, payload)
    )
    found = claude_code.normalize_as(
        event,
        payload,
        tools=TOOLS,
        host=CAPABILITIES,
        moment=gemini_cli.MOMENTS.get(native, "before" if event == "pre-tool-use" else "after"),
        reply=payload.get("last_assistant_message", payload.get("prompt_response")),
        output=gemini_cli.printed(payload.get("tool_response")),
    )
    return found, native


render = claude_code.render
