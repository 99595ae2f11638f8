"""What `memesh setup --host copilot-cli|cursor` writes into those hosts' JSON files, and what doctor reads back. Pure.

Hook entries are MeMesh's by their command (`…memesh-hook <event>`; merged in and out by memesh.core.hook_entries, as
Claude Code's settings are), the MCP server by its name `memesh`: installing twice changes nothing, a newer install
replaces an older one's path, and every other key and entry stays. A file that is not a JSON object is refused
(ConfigError) and left as it is.
"""

from __future__ import annotations

import json
from pathlib import PurePath
from typing import Any

from memesh.core.hook_entries import Edit, command_of, is_ours, merged, quote

__all__ = [  # Edit too: setup and the tests name host_setup.Edit
    "COPILOT",
    "CURSOR",
    "HOOKS",
    "SERVER",
    "TRUSTED",
    "ConfigError",
    "Edit",
    "entry",
    "hooks_edit",
    "hooks_state",
    "installed_events",
    "load",
    "mcp_edit",
    "mcp_state",
    "server",
    "trust_edit",
    "trusts",
]

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


# Copilot CLI's own config.json (in its config folder): the folders it trusts, where alone it loads a repository's
# hooks. 1.0.102 names the list `trustedFolders` (it reads an older `trusted_folders` and rewrites it so), refuses it
# in settings.json, manages the file itself and opens it with `//` comment lines; a trusted folder trusts every
# folder inside it (each seen with the real CLI: tests/transports/test_copilot_cli.py).
TRUSTED = "trustedFolders"
_TRUSTED_KEYS = (TRUSTED, "trusted_folders")


def _commented(text: str, name: str) -> tuple[list[str], dict[str, Any]]:
    """The file's `//` comment lines (kept when it is rewritten) and its JSON object. A JSON string cannot span
    lines, so a line that starts with `//` is a comment wherever it is."""
    lines = text.splitlines()
    comments = [line for line in lines if line.lstrip().startswith("//")]
    body = "\n".join(line for line in lines if not line.lstrip().startswith("//"))
    return comments, load(body, name)


def _trusted_folders(doc: dict[str, Any]) -> list[str]:
    return [
        each for key in _TRUSTED_KEYS if isinstance(doc.get(key), list) for each in doc[key] if isinstance(each, str)
    ]


def trusts(text: str, folder: str) -> bool:
    """Whether Copilot CLI's config.json trusts `folder` (it, or a folder it is in, is listed); ConfigError when the
    file is not a JSON object."""
    _, doc = _commented(text, "Copilot CLI's config.json")
    wanted = PurePath(folder)
    return any(PurePath(each) == wanted or PurePath(each) in wanted.parents for each in _trusted_folders(doc))


def trust_edit(text: str, name: str, folder: str) -> Edit:
    """Copilot CLI's config.json with `folder` among its trusted folders (unchanged when it, or a folder it is in, is
    already); its comment lines and every other key kept."""
    comments, doc = _commented(text, name)
    if trusts(text, folder):
        return Edit(text, False)
    key = "trusted_folders" if TRUSTED not in doc and isinstance(doc.get("trusted_folders"), list) else TRUSTED
    listed = doc.get(key)
    if key in doc and not isinstance(listed, list):
        raise ConfigError(f"{name} has a `{key}` value that is not a list")
    updated = {**doc, key: [*(listed or []), folder]}
    return Edit("".join(f"{line}\n" for line in comments) + _dump(updated), True)
