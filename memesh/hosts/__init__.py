"""The hosts MeMesh's hooks speak, one module each (claude_code, codex, gemini_cli, copilot_cli, cursor), the registry
that tells which one ran a hook, and the canonical values their two functions speak.

Each host module states as data how it is detected (ENV_MARKS, PAYLOAD_MARKS), its events and tool names, what it
can do with an answer (CAPABILITIES) and where its hooks and MCP configuration live, and has two small functions:
- `normalize(event, payload)`: the host's raw hook JSON, for one `memesh-hook <event>`, as the canonical input the
  hook operations read (schemas/hooks/*.input.json), and the host's own name of the event (for render);
- `render(native_event, output)`: the canonical answer's output (schemas/hooks/answer.output.json `output`: context,
  message, deny, block) as the JSON the host reads on stdout, or None when it reads nothing of it.
Operations and core name no host (tests/test_hosts_named.py): a new host is a module here and a line in MODULES and
DETECTION (docs/ARCHITECTURE.md, "To add a host").

The hook runner reads this package before it imports anything else (docs/adr/0002-hook-startup.md), so it is pure
and import-free at run time, and a cold hook imports only the host module that ran it: the registry keeps the
detection marks the modules state as one ordered table (DETECTION; tests/hosts/test_registry.py holds the two equal)
and imports a host's module on first use.
"""

from __future__ import annotations

TYPE_CHECKING = False  # not typing's: this module is on the path of every hook
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

    # In a module of its own: its class would be unmarshalled on every hook here, though never run.
    from memesh.hosts.protocol import Host as Host


# What a tool call is to MeMesh's hooks, whichever host names it.
SHELL = "shell"
READ = "read"
EDIT = "edit"
OTHER = "other"
# When the hook runs, relative to the tool call.
BEFORE = "before"
AFTER = "after"

# What a host can do with a hook's answer (schemas/hooks/*.input.json `host`): every key, always given.
CAPABILITY_NAMES = (
    "context_at_start",  # reads context for the agent from the session-start hook
    "context_before_tool",  # reads context for the agent from a hook before a tool runs
    "context_after_tool",  # reads context for the agent from a hook after a tool ran (with the tool's result)
    "can_deny",  # refuses a tool call a hook before it denies, giving the model the reason
    "holds_turn",  # keeps the agent going when a hook at the turn's end blocks (the message gate may hold a turn)
    "channel",  # the memesh-channel's owner-private host file names this host's recipient
    "work_packages",  # its session transcripts are the JSON lines a work package is prepared from
)

# memesh-hook's events (hooks/hooks.json, transports/hooks/runner.EVENTS) → the canonical input they take.
TOOL_EVENTS = ("pre-tool-use", "post-tool-use")
STOP_EVENTS = ("stop", "pre-compact", "stop-gate")


def capabilities(**given: bool) -> dict[str, bool]:
    """Every capability, False unless given (a test holds each host's table to CAPABILITY_NAMES)."""
    return {name: given.get(name, False) for name in CAPABILITY_NAMES}


def text_of(value: object) -> str | None:
    """A string as it is; None for anything else (a host's optional text field)."""
    return value if isinstance(value, str) else None


def tool(
    kind: str, name: object, *, command: object = None, path: object = None, output: object = None
) -> dict[str, Any]:
    """The canonical tool call: its kind, the host's name for it, and what MeMesh reads of it (given as strings)."""
    found: dict[str, Any] = {"kind": kind, "name": name}
    if isinstance(command, str):
        found["command"] = command
    if isinstance(path, str):
        found["path"] = path
    if isinstance(output, str):
        found["output"] = output
    return found


def canonical(host: Mapping[str, bool], **fields: Any) -> dict[str, Any]:
    """A canonical input from the fields a host module read: present values are passed on as they are (the gate
    says what is wrong with one, such as a session id that is not a string), absent ones (None) left out."""
    found: dict[str, Any] = {key: value for key, value in fields.items() if value is not None}
    found["host"] = dict(host)
    return found


def moment_of(event: str) -> str:
    """When memesh-hook's tool event runs, for a host that names no moment of its own."""
    return BEFORE if event == "pre-tool-use" else AFTER


# Host id → its module under memesh.hosts.
MODULES = {
    "claude-code": "claude_code",
    "codex": "codex",
    "gemini-cli": "gemini_cli",
    "copilot-cli": "copilot_cli",
    "cursor": "cursor",
}
# Every host module's ENV_MARKS, in the order they are asked: (rank, variables that must all be set, host id). What
# a running Codex sets for its commands outranks everything; Gemini CLI's marks outrank Claude Code's (it sets
# CLAUDE_PROJECT_DIR "for compatibility"); Codex's weak marks (CODEX_HOME, PLUGIN_ROOT) and CLAUDE_PLUGIN_ROOT come
# last (each module's docstring says why).
DETECTION: tuple[tuple[int, tuple[str, ...], str], ...] = (
    (10, ("CODEX_THREAD_ID",), "codex"),
    (11, ("CODEX_SANDBOX",), "codex"),
    (20, ("GEMINI_SESSION_ID", "GEMINI_CWD"), "gemini-cli"),
    (30, ("CLAUDECODE",), "claude-code"),
    (31, ("CLAUDE_PROJECT_DIR",), "claude-code"),
    (40, ("CODEX_HOME",), "codex"),
    (41, ("PLUGIN_ROOT",), "codex"),
    (50, ("CLAUDE_PLUGIN_ROOT",), "claude-code"),
)
# Every host module's PAYLOAD_MARKS: a member only that host's payloads carry → its id.
PAYLOAD_DETECTION: tuple[tuple[str, str], ...] = (
    ("sessionId", "copilot-cli"),
    ("toolName", "copilot-cli"),
    ("toolArgs", "copilot-cli"),
    ("cursor_version", "cursor"),
    ("conversation_id", "cursor"),
)
# The variable a hooks file may set to name its host outright (Copilot CLI's, whose snake_case payloads look like
# Claude Code's); it outranks everything else.
HOST_ENV = "MEMESH_HOST"
# The hosts whose session id MCP and the CLI read from their environment, in order (each module's SESSION_ENV).
SESSION_VARIABLES = ("CLAUDE_CODE_SESSION_ID", "CODEX_THREAD_ID")
# Hosts whose session ids a recipient can name when it records intake (spec: intended_session), and how the message
# tool's refusal names them.
NAMEABLE_SESSIONS = frozenset({"claude-code", "codex"})
NAMEABLE_PHRASE = "a Claude Code session id or a Codex CLI thread id"
# The host whose session transcripts (JSON lines) MeMesh reads: the Stop hook's snapshots, transcript work packages.
TRANSCRIPT_HOST = "claude-code"
TRANSCRIPT_HOST_NAME = "Claude Code"


def module(host_id: str) -> Host:
    """The module of a host, by its id (KeyError for one that is not known); imported on first use."""
    return module_named(MODULES[host_id])


def module_named(stem: str) -> Host:
    import sys

    name = f"memesh.hosts.{stem}"
    found = sys.modules.get(name)
    if found is None:
        __import__(name)
        found = sys.modules[name]
    return found  # a module object: tests/hosts/test_registry.py holds each to Host


def all_hosts() -> tuple[Host, ...]:
    """Every host module, in MODULES' order."""
    return tuple(module(host_id) for host_id in MODULES)


def fallback() -> Host:
    """How a hook is read and answered when its host cannot be told: the module memesh.hosts.unknown."""
    return module_named("unknown")


def from_environment(env: Mapping[str, str]) -> str | None:
    """The id of the host whose marks the environment carries first (MEMESH_HOST first of all); None when none
    does."""
    named = env.get(HOST_ENV, "").strip()
    if named in MODULES:
        return named
    for _, names, host_id in DETECTION:
        if all(env.get(name) for name in names):
            return host_id
    return None


def detect(env: Mapping[str, str], payload: Mapping[str, Any] | None = None) -> str | None:
    """Which host ran the hook: named by MEMESH_HOST; else told by its payload's own members (a payload cannot be
    inherited, while a host started from another's session inherits that one's variables); else by its environment;
    None when it cannot be told."""
    named = env.get(HOST_ENV, "").strip()
    if named in MODULES:
        return named
    if payload is not None:
        for member, host_id in PAYLOAD_DETECTION:
            if member in payload:
                return host_id
    return from_environment(env)


def session_from_environment(env: Mapping[str, str] | None = None) -> str | None:
    """The calling agent session, as MCP and the CLI learn it from the hosts that set one (Claude Code's
    CLAUDE_CODE_SESSION_ID, else Codex's CODEX_THREAD_ID), in `env` or this process's environment."""
    if env is None:
        import os

        env = os.environ
    for name in SESSION_VARIABLES:
        value = env.get(name, "").strip()
        if value:
            return value
    return None
