"""Codex: loads the plugin's hooks file (hooks/hooks.json, through .codex-plugin/plugin.json) and speaks Claude
Code's protocol (its shell tool is `Bash` too), so it is normalized and answered as Claude Code is; what differs is
what it can do with an answer: its Stop does not hold a turn (the message gate must not block), it has no
memesh-channel, and its transcripts are not the JSON lines a work package is prepared from.

Detection: what a running Codex sets for its commands (CODEX_THREAD_ID, CODEX_SANDBOX) outranks every other host's
marks; CODEX_HOME, a user's setting a shell profile may export, cannot outrank Claude Code's own marks (it had turned
Claude Code's message gate off), nor can PLUGIN_ROOT, which Codex sets for a plugin's hooks (beside
CLAUDE_PLUGIN_ROOT "for compatibility", without CODEX_THREAD_ID; read in Codex's source, not seen in a session).
"""

from __future__ import annotations

from memesh.hosts import capabilities, claude_code, moment_of

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

ID = "codex"
NAME = "Codex"
ENV_MARKS = ((10, ("CODEX_THREAD_ID",)), (11, ("CODEX_SANDBOX",)), (40, ("CODEX_HOME",)), (41, ("PLUGIN_ROOT",)))
PAYLOAD_MARKS: tuple[str, ...] = ()
SESSION_ENV = ("CODEX_THREAD_ID",)
EVENTS = claude_code.EVENTS
TOOLS = {"Bash": claude_code.TOOLS["Bash"]}
CAPABILITIES = capabilities(context_at_start=True, context_before_tool=True, context_after_tool=True, can_deny=True)
HOOKS_CONFIG = ("hooks/hooks.json (the plugin, .codex-plugin/plugin.json)",)
MCP_CONFIG = ("~/.codex/config.toml (codex mcp add)",)


def normalize(event: str, payload: Mapping[str, Any]) -> tuple[dict[str, Any], str]:
    native = claude_code.native_event(event, payload)
    found = claude_code.normalize_as(
        event,
        payload,
        tools=claude_code.TOOLS,  # what it reports under Claude Code's names is read as Claude Code's
        host=CAPABILITIES,
        moment=moment_of(event),
        reply=payload.get("last_assistant_message"),
        output=claude_code.printed(payload.get("tool_response")),
    )
    return found, native


render = claude_code.render
