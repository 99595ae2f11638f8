"""The one path every hook event takes: read stdin, check it against the event's schema, run the event's handler,
write the outcome records and the answer. Never raises, never blocks: the exit status is always 0."""

from __future__ import annotations

import importlib
import json
import os
from typing import TYPE_CHECKING

from memesh import hook_outcomes
from memesh.transports.hooks.wire import MAX_STDIN

if TYPE_CHECKING:  # typing and dataclasses cost a hook measurable start-up: neither is imported at run time
    from collections.abc import Callable, Mapping
    from typing import IO, Any

    Handler = Callable[[dict[str, Any], "HookCall"], "Answer"]


class HookCall:
    """Who runs the hook, and where: the environment variables the handlers read and the working directory.

    A hook running in its own process reads its own (`here`); a warm memesh-mcp serving a hook for its client
    passes the client's, so a handler never reads os.environ or the process's working directory itself.
    """

    __slots__ = ("cwd", "env", "host")

    def __init__(self, env: Mapping[str, str], cwd: str) -> None:
        self.env = env
        self.cwd = cwd
        self.host = detect_host(env)

    @classmethod
    def here(cls) -> HookCall:
        try:
            cwd = os.getcwd()  # noqa: PTH109 (a str, as the client sends it)
        except OSError:  # the folder was removed under the host: a handler that needs it fails, recorded
            cwd = ""
        return cls(os.environ, cwd)


class Answer:
    """What a handler did: the JSON the host reads (None prints nothing) and one outcome per capture."""

    def __init__(self) -> None:
        self.output: dict[str, Any] | None = None
        self.records: list[tuple[str, str, dict[str, str]]] = []

    def record(self, hook: str, outcome: str, *, reason: str | None = None, entity: str | None = None) -> None:
        detail = {"reason": reason} if reason is not None else {}
        if entity is not None:
            detail["entity"] = entity
        self.records.append((hook, outcome, detail))


# event → (module under memesh.transports.hooks, its schema under schemas/hooks, the hook its failures are filed under)
EVENTS: dict[str, tuple[str, str, str]] = {
    "session-start": ("session_start", "hooks/session_start.input", "session-start"),
    "stop": ("stop", "hooks/stop.input", "handoff-capture"),
    "pre-compact": ("pre_compact", "hooks/stop.input", "pre-compact"),
    "post-tool-use": ("post_tool", "hooks/tool_use.input", "post-commit"),
    "pre-tool-use": ("pre_tool", "hooks/tool_use.input", "pre-edit"),
    "stop-gate": ("stop_gate", "hooks/stop.input", "message-gate"),
    "user-prompt-submit": ("prompt", "hooks/prompt.input", "message-reminder"),
}


def detect_host(env: Mapping[str, str]) -> str | None:
    """Which host ran the hook, from the environment each one sets; None when it cannot be told.

    What a running Codex sets for its commands (CODEX_THREAD_ID, CODEX_SANDBOX) wins; then what only Claude Code
    sets (CLAUDECODE, CLAUDE_PROJECT_DIR); then CODEX_HOME, a user's setting a shell profile may export, so it cannot
    outrank Claude Code's own marks (it had turned Claude Code's message gate off); CLAUDE_PLUGIN_ROOT last, since a
    host loading the plugin's shared hook file may set it too.
    """
    if env.get("CODEX_THREAD_ID") or env.get("CODEX_SANDBOX"):
        return "codex"
    if env.get("CLAUDECODE") or env.get("CLAUDE_PROJECT_DIR"):
        return "claude-code"
    if env.get("CODEX_HOME"):
        return "codex"
    if env.get("CLAUDE_PLUGIN_ROOT"):
        return "claude-code"
    return None


def _decode(data: bytes) -> dict[str, Any] | None:
    try:
        value = json.loads(data.decode("utf-8"))
    except (ValueError, UnicodeDecodeError, RecursionError):
        return None
    return value if isinstance(value, dict) else None


def record_failure(event: str, reason: str, call: HookCall | None = None) -> None:
    """The error outcome of a hook that could not be run to the end (filed under the event's hook)."""
    spec = EVENTS.get(event)
    host = (call or HookCall(os.environ, "")).host
    hook_outcomes.record(spec[2] if spec else "session-start", "error", host=host, reason=reason)


def run(event: str, data: bytes, stdout: IO[str], call: HookCall) -> int:
    """Run one hook event over its stdin bytes (at most MAX_STDIN of them, or it is malformed); 0 always."""
    host = call.host
    spec = EVENTS.get(event)
    if spec is None:
        hook_outcomes.record("session-start", "error", host=host, reason="unknown hook event")
        return 0
    module_name, schema_name, hook = spec
    payload = _decode(data) if len(data) <= MAX_STDIN else None
    if payload is None:
        hook_outcomes.record(hook, "error", host=host, reason="malformed stdin JSON")
        return 0
    try:
        from memesh.schema import files as schemas
        from memesh.schema import validation

        problems = validation.issues(schemas.load(schema_name), payload)
        if problems:
            hook_outcomes.record(hook, "error", host=host, reason=f"stdin JSON does not fit: {problems[0]}")
            return 0
        handler: Handler = importlib.import_module(f"memesh.transports.hooks.{module_name}").handle
        answer = handler(payload, call)
    except Exception as exc:  # a hook never takes the agent down with it: the label is recorded, not the text
        hook_outcomes.record(hook, "error", host=host, reason=f"uncaught {type(exc).__name__}")
        return 0
    for name, outcome, detail in answer.records:
        hook_outcomes.record(name, outcome, host=host, reason=detail.get("reason"), entity=detail.get("entity"))
    if answer.output is not None:
        try:
            stdout.write(json.dumps(answer.output, ensure_ascii=False))
            stdout.flush()
        except (OSError, ValueError):
            pass
    return 0
