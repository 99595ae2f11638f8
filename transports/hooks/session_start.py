"""SessionStart: inject the project's briefing (the same assembly rules as the briefing tool) and record which
memories were injected, so a [mem:id] citation later in the session credits them."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from returns.result import Failure, Success

from memesh.transports.hooks.context import call_context, hook_store, project_of, session_cwd
from memesh.transports.hooks.inbox import declared_recipient
from memesh.transports.hooks.runner import Answer, HookCall

HOOK = "session-start"


def handle(payload: dict[str, Any], call: HookCall) -> Answer:
    from memesh.adapters import config_file as config
    from memesh.app import gate
    from memesh.ops import briefing, session_memory

    answer = Answer()
    project = project_of(session_cwd(payload, call))
    # The session's own id: what is meant for one session (intended_session) is counted only for it.
    ctx = replace(call_context(project, call), caller_session=str(payload["session_id"]))
    request: dict[str, Any] = {"project": project}
    # MEMESH_RECIPIENT (the hook's environment), or Claude Code's hosts/claude.json
    recipient, problem = declared_recipient(call.host, call.env)
    if recipient:
        request["recipient"] = recipient
    if problem is not None or isinstance(gate.admit("tools/briefing.input", request), Failure):
        request.pop("recipient", None)
        answer.record(HOOK, "error", reason="MEMESH_RECIPIENT is not a valid recipient")
    limit = config.effective_session_limit(config.read_or_defaults(), call.env)
    if limit.row != str(limit.value):  # an adjusted value says why, once per session, for doctor
        answer.record(HOOK, "notified", reason=f"sessionLimit {limit.row}")
    with hook_store(answer, HOOK) as store:
        if store is None:
            return answer
        match briefing.build(store, request, ctx=ctx):  # type: ignore[arg-type]
            case Success(result):
                pass
            case _:
                answer.record(HOOK, "error", reason="briefing refused its input")
                return answer
        session_memory.record_injected(store, str(payload["session_id"]), result.injected_ids, ctx=ctx)
        try:
            notice = work_package_notice(payload, result.level, call, ctx)
        except Exception as exc:  # the notice is optional: the briefing still reaches the agent without it
            notice = None
            answer.record(HOOK, "error", reason=f"work-package notice: uncaught {type(exc).__name__}")
    if result.index_error:  # the block says so; doctor hears of it too
        answer.record(HOOK, "error", reason="durable-memory index unreadable")
    import memesh
    from memesh import hook_outcomes

    quiet = hook_outcomes.liveness_notice(memesh.__version__, ctx.now)
    if result.empty:
        if quiet is not None:
            answer.output = {"systemMessage": quiet}
        answer.record(HOOK, "skipped", reason="nothing to brief")
        return answer
    lines = [banner(result.entity_count, result.has_handoff, result.level), *([quiet] if quiet else [])]
    context = result.text if notice is None else f"{result.text}\n\n{notice}"
    answer.output = {
        "hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": context},
        "systemMessage": "\n".join(lines),
    }
    answer.record(HOOK, "notified", reason=f"{result.entity_count} memories injected")
    return answer


def banner(count: int, has_handoff: bool, level: str) -> str:
    noun = "memory" if count == 1 else "memories"
    handoff = ", last session's handoff" if has_handoff else ""
    return f"memesh: {count} {noun}{handoff} loaded (briefing level {level})"


def work_package_notice(payload: dict[str, Any], level: str, call: HookCall, ctx: Any) -> str | None:
    """At level full, under Claude Code, the notice that a work package can be prepared for this project: after the
    fence, outside the shared limit, and never part of the briefing tool's or the CLI's text. It reads staged
    proposals, which the hooks' lean store leaves out, so it opens the whole store (level full only)."""
    if level != "full" or call.host == "codex":
        return None
    from memesh.app.database import open_database
    from memesh.core import work_package as rules
    from memesh.core.briefing_text import safe_line
    from memesh.core.identity import project_label
    from memesh.ops.work_package import available_kinds

    project = ctx.project()
    store = open_database()
    try:
        kinds = available_kinds(
            store,
            project,
            ctx=ctx,
            session_folder=session_cwd(payload, call),
            current_session=str(payload["session_id"]),
        )
    finally:
        store.close()
    return rules.session_notice(project, safe_line(project_label(project), 80), kinds)
