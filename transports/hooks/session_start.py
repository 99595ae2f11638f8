"""SessionStart: inject the project's briefing (the same assembly rules as the briefing tool) and record which
memories were injected, so a [mem:id] citation later in the session credits them."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from returns.result import Failure, Success

from memesh.transports.hooks.context import call_context, project_of, session_cwd
from memesh.transports.hooks.inbox import declared_recipient
from memesh.transports.hooks.runner import Answer

HOOK = "session-start"


def handle(payload: dict[str, Any], host: str | None) -> Answer:
    from memesh.adapters import config_file as config
    from memesh.app import gate
    from memesh.app.database import StoreError
    from memesh.app.database import open_database as open_store
    from memesh.ops import briefing, session_memory

    answer = Answer()
    project = project_of(session_cwd(payload))
    # The session's own id: what is meant for one session (intended_session) is counted only for it.
    ctx = replace(call_context(project, host), caller_session=str(payload["session_id"]))
    request: dict[str, Any] = {"project": project}
    recipient, problem = declared_recipient(host)  # MEMESH_RECIPIENT, or Claude Code's hosts/claude.json
    if recipient:
        request["recipient"] = recipient
    if problem is not None or isinstance(gate.admit("tools/briefing.input", request), Failure):
        request.pop("recipient", None)
        answer.record(HOOK, "error", reason="MEMESH_RECIPIENT is not a valid recipient")
    limit = config.effective_session_limit(config.read_or_defaults())
    if limit.row != str(limit.value):  # an adjusted value says why, once per session, for doctor
        answer.record(HOOK, "notified", reason=f"sessionLimit {limit.row}")
    try:
        store = open_store()
    except StoreError:
        answer.record(HOOK, "error", reason="database unreadable")
        return answer
    try:
        match briefing.build(store, request, ctx=ctx):  # type: ignore[arg-type]
            case Success(result):
                pass
            case _:
                answer.record(HOOK, "error", reason="briefing refused its input")
                return answer
        session_memory.record_injected(store, str(payload["session_id"]), result.injected_ids, ctx=ctx)
    finally:
        store.close()
    import memesh
    from memesh import hook_outcomes

    quiet = hook_outcomes.liveness_notice(memesh.__version__, ctx.now)
    if result.empty:
        if quiet is not None:
            answer.output = {"systemMessage": quiet}
        answer.record(HOOK, "skipped", reason="nothing to brief")
        return answer
    lines = [banner(result.entity_count, result.has_handoff, result.level), *([quiet] if quiet else [])]
    answer.output = {
        "hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": result.text},
        "systemMessage": "\n".join(lines),
    }
    answer.record(HOOK, "notified", reason=f"{result.entity_count} memories injected")
    return answer


def banner(count: int, has_handoff: bool, level: str) -> str:
    noun = "memory" if count == 1 else "memories"
    handoff = ", last session's handoff" if has_handoff else ""
    return f"memesh: {count} {noun}{handoff} loaded (briefing level {level})"
