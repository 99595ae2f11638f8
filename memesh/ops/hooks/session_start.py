"""SessionStart: the project's briefing for the agent (the briefing tool's assembly rules, at the level in effect),
the memories it injected recorded so a [mem:id] citation later in the session credits them, and — at level full,
under a host whose transcripts a work package reads — the notice that a work package can be prepared, after the fence
and outside its shared limit. A host that reads no context at session start gets nothing (its agent is briefed
through MCP), and nothing is recorded as injected."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Final, Protocol

from returns.result import Failure, Success

from memesh.core import briefing as rules
from memesh.ops import briefing, session_memory
from memesh.ops.hooks.answer import Answer
from memesh.ops.hooks.recipient import RECIPIENT_MAX, RecipientSources, declared_recipient

if TYPE_CHECKING:
    from datetime import datetime

    from returns.result import Result

    from memesh.context import CallContext
    from memesh.core.settings import Effective
    from memesh.errors import MemeshError
    from memesh.generated.hooks.answer_output import HookAnswer
    from memesh.generated.hooks.session_start_input import SessionStartHookInput
    from memesh.ops.work_package import TranscriptFiles, WorkPackageStore

HOOK: Final = "session-start"


class SessionStartStore(briefing.BriefingStore, session_memory.SessionStore, Protocol):
    pass


class SessionStartWorld(RecipientSources, Protocol):
    def session_folder(self, given: str | None) -> str: ...
    def project_of(self, folder: str) -> str: ...
    def briefing_level(self) -> Effective: ...
    def session_limit(self) -> Effective: ...
    def store(self) -> SessionStartStore | None: ...
    def full_store(self) -> WorkPackageStore | None: ...
    def transcripts(self) -> TranscriptFiles: ...
    def liveness_notice(self, now: datetime) -> str | None: ...


def session_start(
    world: SessionStartWorld, request: SessionStartHookInput, /, *, ctx: CallContext
) -> Result[HookAnswer, MemeshError]:
    """The briefing as the agent's additional context and a banner line for the person (or only the quiet-capture
    line, or nothing, when there is nothing to brief); never fails: what went wrong is an outcome record."""
    answer = Answer()
    host = request["host"]
    if not host["context_at_start"]:
        answer.record(HOOK, "skipped", reason="the host reads no context at session start")
        return answer.done()
    folder = world.session_folder(request.get("cwd"))
    project = world.project_of(folder)
    # The session's own id: what is meant for one session (intended_session) is counted only for it.
    ctx = replace(ctx, project=lambda: project, caller_session=request["session_id"])
    recipient, problem = declared_recipient(world, channel=host["channel"])
    if problem is not None or (recipient is not None and len(recipient) > RECIPIENT_MAX):
        recipient = None
        answer.record(HOOK, "error", reason="MEMESH_RECIPIENT is not a valid recipient")
    limit = world.session_limit()
    for reason in limit.adjusted:  # each adjusted source says why, once per session, for doctor
        answer.record(HOOK, "notified", reason=f"sessionLimit {reason}")
    store = world.store()
    if store is None:
        answer.record(HOOK, "error", reason="database unreadable")
        return answer.done()
    if recipient is not None:
        match briefing.canonical_recipient(recipient):
            case Success(canonical):
                recipient = canonical
            case Failure():
                answer.record(HOOK, "error", reason="briefing refused its input")
                return answer.done()
    level = world.briefing_level().value
    inputs = briefing.gather(store, project, level=level, slots=limit.value, recipient=recipient, ctx=ctx)
    result = rules.assemble(inputs)
    session_memory.record_injected(store, request["session_id"], result.injected_ids, ctx=ctx)
    notice = None
    if result.level == "full" and host["work_packages"]:
        notice = _work_package_notice(
            world, answer, folder=folder, project=project, session_id=request["session_id"], ctx=ctx
        )
    if result.index_error:  # the block says so; doctor hears of it too
        answer.record(HOOK, "error", reason="durable-memory index unreadable")
    quiet = world.liveness_notice(ctx.now)
    if result.empty:
        if quiet is not None:
            answer.output = {"message": quiet}
        answer.record(HOOK, "skipped", reason="nothing to brief")
        return answer.done()
    lines = [banner(result.entity_count, result.has_handoff, result.level), *([quiet] if quiet else [])]
    text = result.text if notice is None else f"{result.text}\n\n{notice}"
    answer.output = {"context": text, "message": "\n".join(lines)}
    answer.record(HOOK, "notified", reason=f"{result.entity_count} memories injected")
    return answer.done()


def banner(count: int, has_handoff: bool, level: str) -> str:
    noun = "memory" if count == 1 else "memories"
    handoff = ", last session's handoff" if has_handoff else ""
    return f"memesh: {count} {noun}{handoff} loaded (briefing level {level})"


def _work_package_notice(
    world: SessionStartWorld, answer: Answer, *, folder: str, project: str, session_id: str, ctx: CallContext
) -> str | None:
    """The notice that a work package can be prepared for this project (never part of the briefing tool's or the
    CLI's text); None when none can. It reads staged proposals, which the hooks' lean store leaves out, so it reads
    the whole store. Optional: when it fails, the briefing still reaches the agent, and the failure is recorded."""
    from memesh.core import work_package as packages
    from memesh.core.briefing_text import safe_line
    from memesh.core.identity import project_label
    from memesh.ops.work_package import available_kinds

    store = world.full_store()
    if store is None:
        answer.record(HOOK, "error", reason="work-package notice: database unreadable")
        return None
    try:
        kinds = available_kinds(
            store, world.transcripts(), project, ctx=ctx, session_folder=folder, current_session=session_id
        )
    except Exception as exc:  # a label, never the text
        answer.record(HOOK, "error", reason=f"work-package notice: uncaught {type(exc).__name__}")
        return None
    return packages.session_notice(project, safe_line(project_label(project), 80), kinds)
