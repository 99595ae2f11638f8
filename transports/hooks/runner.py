"""The one path every hook event takes: read stdin, tell the host that ran it (memesh.hosts: MEMESH_HOST, its
payload's own fields, its environment), normalize the host's JSON into the event's canonical input (the host's
module), leave early where the event's trigger plainly does not apply, then the door (`dispatch.run`: the gate checks
the canonical input against the event's schema, the event's operation runs on the hook's resources), then the outcome
records and the answer, rendered as that host reads it (the host's module again). Never raises, never blocks: the
exit status is always 0."""

from __future__ import annotations

import json
import os

from memesh import hosts
from memesh.app import hook_outcomes
from memesh.transports.hooks.wire import MAX_STDIN

TYPE_CHECKING = False  # not typing's: typing and dataclasses cost a hook measurable start-up; neither is imported
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping
    from typing import IO, Any

    from memesh.generated.hooks.answer_output import HookAnswer
    from memesh.hosts import Host


class HookCall:
    """Who runs the hook, and where: the environment variables the operations read, the working directory, and the
    host (told from the environment until the payload is read, then from both: `identify`).

    A hook running in its own process reads its own (`here`); a warm memesh-mcp serving a hook for its client
    passes the client's, so nothing on the way reads os.environ or the process's working directory itself.
    """

    __slots__ = ("cwd", "env", "host")

    def __init__(self, env: Mapping[str, str], cwd: str) -> None:
        self.env = env
        self.cwd = cwd
        self.host: str | None = hosts.from_environment(env)

    def identify(self, payload: Mapping[str, Any]) -> Host:
        """The host's module, told again now that its payload is known (whose own members outrank inherited
        variables); only that host's module is imported."""
        self.host = hosts.detect(self.env, payload)
        return hosts.module(self.host) if self.host is not None else hosts.fallback()

    @classmethod
    def here(cls) -> HookCall:
        try:
            cwd = os.getcwd()  # noqa: PTH109 (a str, as the client sends it)
        except OSError:  # the folder was removed under the host: an event that needs it fails, recorded
            cwd = ""
        return cls(os.environ, cwd)


# event → the hook its failures are filed under (each event's operation: memesh.app.operations.hooks.BY_EVENT)
EVENTS: dict[str, str] = {
    "session-start": "session-start",
    "stop": "handoff-capture",
    "pre-compact": "pre-compact",
    "post-tool-use": "post-commit",
    "pre-tool-use": "pre-edit",
    "stop-gate": "message-gate",
    "user-prompt-submit": "message-reminder",
}


def detect_host(env: Mapping[str, str]) -> str | None:
    """Which host ran the hook, from its environment alone (memesh.hosts); None when it cannot be told."""
    return hosts.from_environment(env)


# An event's JSON has a few dozen members; a tool's input or answer inside it, a few thousand at most. Far more is
# hostile: a 400,000-key object cost seconds in the schema check (issue 35), so it is refused before that.
MAX_MEMBERS = 20_000
TOO_MANY_MEMBERS = "stdin JSON has too many members"
MALFORMED = "malformed stdin JSON"


class _TooManyMembers(ValueError):
    pass


def _members_counted() -> Callable[[list[tuple[str, Any]]], dict[str, Any]]:
    """An object_pairs_hook that refuses the input once its objects together hold over MAX_MEMBERS members."""
    seen = 0

    def hook(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        nonlocal seen
        seen += len(pairs)
        if seen > MAX_MEMBERS:
            raise _TooManyMembers(TOO_MANY_MEMBERS)
        return dict(pairs)

    return hook


def _decode(data: bytes) -> dict[str, Any] | str:
    """The event's JSON object, or the reason it is refused. Every member has a colon outside its strings, so input
    with few colons cannot hold too many members and is parsed as it is; only the rest is counted on the way."""
    try:
        text = data.decode("utf-8")
        if data.count(b":") <= MAX_MEMBERS:
            value = json.loads(text)
        else:
            value = json.loads(text, object_pairs_hook=_members_counted())
    except _TooManyMembers:
        return TOO_MANY_MEMBERS
    except (ValueError, UnicodeDecodeError, RecursionError):
        return MALFORMED
    return value if isinstance(value, dict) else MALFORMED


# The events whose trigger the runner can tell before the door (_not_triggered).
PREFILTERED = frozenset({"post-tool-use", "stop-gate", "user-prompt-submit"})


def _not_triggered(event: str, canonical: dict[str, Any], call: HookCall) -> list[tuple[str, str]] | None:
    """The skips to record — none, for a hook that stays quiet — when the event's trigger plainly does not apply,
    told from the canonical input before the door is imported (ADR 0002); None when the event goes through the door.
    Most shell commands are not commits, and most sessions name no recipient, and these hooks run after every shell
    command, prompt and stop. The other events always go through the door: they never read the triggers (nor
    compile their regex)."""
    if event not in PREFILTERED:
        return None
    from memesh.core import triggers

    host = canonical["host"]
    if event == "post-tool-use" and triggers.plainly_not_a_commit(canonical):
        return [("post-commit", triggers.NOT_A_COMMIT)]
    if event == "stop-gate" and not triggers.gate_applies(host):
        return []
    if event in ("user-prompt-submit", "stop-gate"):
        from memesh.app.hook_resources import channel_configured

        if not triggers.may_name_a_recipient(call.env, host, channel_configured):
            return []
    return None


SCHEMA_MISFIT = "stdin JSON does not fit the event's schema"


def record_failure(event: str, reason: str, call: HookCall | None = None) -> None:
    """The error outcome of a hook that could not be run to the end (filed under the event's hook)."""
    host = (call or HookCall(os.environ, "")).host
    hook_outcomes.record(EVENTS.get(event, "session-start"), "error", host=host, reason=reason)


def _through_the_door(event: str, canonical: dict[str, Any], call: HookCall) -> HookAnswer | str:
    """The event's answer, or the reason of its error outcome: the canonical input does not fit the event's schema
    (the host's JSON lacked or mistyped what it needs), or the database failed on the way (the door translated it to
    the spec's code)."""
    from returns.result import Failure, Success

    from memesh.app import dispatch
    from memesh.app.operations.hooks import BY_EVENT
    from memesh.app.resources import Resources
    from memesh.errors import ErrorCode

    resources = Resources.for_hook(call.env, call.cwd)
    try:
        result = dispatch.run(BY_EVENT[event], resources, canonical, resources.hook_context(call.host))
    finally:
        resources.close()
    match result:
        case Success(answer):
            found: HookAnswer = answer
            return found
        case Failure(error) if error.code is ErrorCode.BAD_BODY:  # the gate's: no operation ran
            # A fixed label, never the validator's text: it can quote the input (a key, a value) into the log.
            return SCHEMA_MISFIT
        case Failure(error):
            return f"uncaught {error.code}"
    raise AssertionError("a Result is a Success or a Failure")


def run(event: str, data: bytes, stdout: IO[str], call: HookCall) -> int:
    """Run one hook event over its stdin bytes (at most MAX_STDIN of them, or it is malformed); 0 always."""
    hook = EVENTS.get(event)
    if hook is None:
        hook_outcomes.record("session-start", "error", host=call.host, reason="unknown hook event")
        return 0
    payload = _decode(data) if len(data) <= MAX_STDIN else MALFORMED
    if isinstance(payload, str):
        hook_outcomes.record(hook, "error", host=call.host, reason=payload)
        return 0
    module = call.identify(payload)
    host = call.host
    try:
        canonical, native = module.normalize(event, payload)
        skipped = _not_triggered(event, canonical, call)
        if skipped is not None:
            for skipped_hook, why in skipped:
                hook_outcomes.record(skipped_hook, "skipped", host=host, reason=why)
            return 0
        answer = _through_the_door(event, canonical, call)
        said = None if isinstance(answer, str) else answer.get("output")
        rendered = module.render(native, said) if said is not None else None
    except Exception as exc:  # a hook never takes the agent down with it: the label is recorded, not the text
        hook_outcomes.record(hook, "error", host=host, reason=f"uncaught {type(exc).__name__}")
        return 0
    if isinstance(answer, str):
        hook_outcomes.record(hook, "error", host=host, reason=answer)
        return 0
    for outcome in answer["outcomes"]:
        reason, entity = outcome.get("reason"), outcome.get("entity")
        hook_outcomes.record(outcome["hook"], outcome["outcome"], host=host, reason=reason, entity=entity)
    if rendered is not None:
        try:
            stdout.write(json.dumps(rendered, ensure_ascii=False))
            stdout.flush()
        except (OSError, ValueError):
            pass
    return 0
