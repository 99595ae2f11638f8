"""What `memesh setup --host copilot-cli|cursor` writes into those hosts' JSON files, and what doctor reads back. Pure.

Hook entries are MeMesh's by their command (`…memesh-hook <event>`; merged in and out by memesh.core.hook_entries, as
Claude Code's settings are), the MCP server by its name `memesh`: installing twice changes nothing, a newer install
replaces an older one's path, and every other key and entry stays. A file that is not a JSON object is refused
(ConfigError) and left as it is.
"""

from __future__ import annotations

import json
from typing import Any

from memesh.core.hook_entries import Edit, command_of, is_ours, merged, quote

COPILOT = "copilot-cli"
CURSOR = "cursor"
# host → (native event, memesh-hook event, timeout in seconds or None), as README's blocks show them
HOOKS: dict[str, tuple[tuple[str, str, int | None], ...]] = {
    COPILOT: (
        ("sessionStart", "session-start", 10),
        ("preToolUse", "pre-tool-use", 10),
        ("postToolUse", "post-tool-use", 15),
        ("agentStop", "stop", 30),
    ),
    CURSOR: (
        ("sessionStart", "session-start", None),
        ("beforeShellExecution", "pre-tool-use", None),
        ("afterShellExecution", "post-tool-use", None),
        ("afterAgentResponse", "stop", None),
    ),
}
SERVER = "memesh"


class ConfigError(ValueError):
    """The file is not a JSON object (or its `hooks` / `mcpServers` is not an object): refusing to rewrite it."""


def entry(host: str, hook_command: str, event: str, timeout: int | None) -> dict[str, Any]:
    """One hook entry as the host reads it."""
    command = f"{quote(hook_command)} {event}"
    if host == COPILOT:
        return {"type": "command", "bash": command, "env": {"MEMESH_HOST": COPILOT}, "timeoutSec": timeout}
    return {"command": command}


def server(host: str, mcp_command: str) -> dict[str, Any]:
    """MeMesh's MCP server entry as the host reads it."""
    if host == COPILOT:
        return {"type": "local", "command": mcp_command, "args": [], "tools": ["*"]}
    return {"command": mcp_command}


def load(text: str, name: str) -> dict[str, Any]:
    """The file's JSON object ({} for an empty or absent file); ConfigError when it is anything else."""
    if not text.strip():
        return {}
    try:
        value = json.loads(text)
    except ValueError as exc:
        raise ConfigError(f"{name} is not valid JSON ({exc})") from exc
    if not isinstance(value, dict):
        raise ConfigError(f"{name} does not hold a JSON object")
    return value


def _object(doc: dict[str, Any], key: str, name: str) -> dict[str, Any]:
    value = doc.get(key, {})
    if not isinstance(value, dict):
        raise ConfigError(f"{name} has a `{key}` value that is not an object")
    return value


def _dump(doc: dict[str, Any]) -> str:
    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"


def hooks_edit(text: str, name: str, host: str, hook_command: str, *, uninstall: bool = False) -> Edit:
    """The hooks file with MeMesh's entries for `host` (or without any, on uninstall); foreign entries kept."""
    doc = load(text, name)
    current = _object(doc, "hooks", name)
    wanted = {} if uninstall else {native: [entry(host, hook_command, event, t)] for native, event, t in HOOKS[host]}
    hooks = merged(current, wanted)
    if hooks == current:
        return Edit(text, False)
    return Edit(_dump({"version": doc.get("version", 1), **doc, "hooks": hooks}), True)


def mcp_edit(text: str, name: str, host: str, mcp_command: str, *, uninstall: bool = False) -> Edit:
    """The MCP config with the `memesh` server running `mcp_command` (or without it, on uninstall)."""
    doc = load(text, name)
    servers = _object(doc, "mcpServers", name)
    present = servers.get(SERVER)
    if uninstall:
        if present is None:
            return Edit(text, False)
        rest = {key: value for key, value in servers.items() if key != SERVER}
        return Edit(_dump({**doc, "mcpServers": rest}), True)
    if isinstance(present, dict) and present.get("command") == mcp_command:
        return Edit(text, False)
    wanted = {**(present if isinstance(present, dict) else {}), **server(host, mcp_command)}
    return Edit(_dump({**doc, "mcpServers": {**servers, SERVER: wanted}}), True)


def installed_events(text: str, host: str) -> list[str]:
    """The host's native events that run a MeMesh hook, per this hooks file's text."""
    hooks = _object(load(text, "hooks file"), "hooks", "hooks file")
    return [
        native
        for native, _, _ in HOOKS[host]
        if isinstance(hooks.get(native), list) and any(is_ours(each) for each in hooks[native])
    ]


def hooks_state(text: str, host: str, hook_command: str) -> str:
    """ "absent" (no MeMesh hook), "ok" (every one, running this memesh-hook), or "stale" (some missing, or running
    another path); ConfigError when the file is not a JSON object."""
    hooks = _object(load(text, "hooks file"), "hooks", "hooks file")
    ours = [each for entries in hooks.values() if isinstance(entries, list) for each in entries if is_ours(each)]
    if not ours:
        return "absent"
    wanted = {native: command_of(entry(host, hook_command, event, timeout)) for native, event, timeout in HOOKS[host]}
    for native, command in wanted.items():
        entries = hooks.get(native)
        if not isinstance(entries, list) or command not in [command_of(each) for each in entries if is_ours(each)]:
            return "stale"
    return "stale" if len(ours) != len(wanted) else "ok"


def mcp_state(text: str, mcp_command: str) -> str:
    """ "absent", "ok" (the `memesh` server runs this memesh-mcp) or "stale"; ConfigError when not a JSON object."""
    servers = _object(load(text, "MCP config"), "mcpServers", "MCP config")
    present = servers.get(SERVER)
    if present is None:
        return "absent"
    return "ok" if isinstance(present, dict) and present.get("command") == mcp_command else "stale"
