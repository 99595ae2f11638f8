"""UserPromptSubmit and the Stop gate (under a host whose turn a block holds): what waits for the session's declared
recipient in its project, as this session sees it. Quiet (nothing printed, nothing recorded) without a recipient —
most sessions: these run on every prompt and every stop. A refused recipient or an unreadable database is an error
outcome and reads as nothing waiting."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Protocol

from memesh.core.triggers import gate_applies
from memesh.ops.hooks.answer import Answer, Hook
from memesh.ops.hooks.recipient import RecipientSources, declared_recipient

if TYPE_CHECKING:
    from returns.result import Result

    from memesh.context import CallContext
    from memesh.errors import MemeshError
    from memesh.generated.hooks.answer_output import HookAnswer
    from memesh.generated.hooks.prompt_input import PromptHookInput
    from memesh.generated.hooks.stop_input import StopHookInput
    from memesh.ops.message_reminders import ReminderStore


class MessageWorld(RecipientSources, Protocol):
    def session_folder(self, given: str | None) -> str: ...
    def project_of(self, folder: str) -> str: ...
    def full_store(self) -> ReminderStore | None: ...


class InboxRead(Protocol):
    """A reminder of `memesh.ops.message_reminders`: its text, or None when nothing waits."""

    def __call__(
        self, store: ReminderStore, *, project: str, recipient: str, session_id: str, ctx: CallContext
    ) -> str | None: ...


def _waiting(
    world: MessageWorld,
    *,
    request: PromptHookInput | StopHookInput,
    ctx: CallContext,
    answer: Answer,
    hook: Hook,
    read: InboxRead,
) -> str | None:
    recipient, problem = declared_recipient(world, channel=request["host"]["channel"])
    if problem is not None:
        answer.record(hook, "error", reason=problem)
        return None
    if recipient is None:
        return None
    project = world.project_of(world.session_folder(request.get("cwd")))
    store = world.full_store()  # the messages live in the whole store, not the hooks' lean one
    if store is None:
        answer.record(hook, "error", reason="database unreadable")
        return None
    scoped = replace(ctx, project=lambda: project)
    return read(store, project=project, recipient=recipient, session_id=request["session_id"], ctx=scoped)


# The reminders are imported only once a recipient is declared: most sessions declare none, and these hooks run on
# every prompt and every stop.
def _prompt_reminder(
    store: ReminderStore, *, project: str, recipient: str, session_id: str, ctx: CallContext
) -> str | None:
    from memesh.ops.message_reminders import prompt_reminder

    return prompt_reminder(store, project=project, recipient=recipient, session_id=session_id, ctx=ctx)


def _held_turn(store: ReminderStore, *, project: str, recipient: str, session_id: str, ctx: CallContext) -> str | None:
    from memesh.ops.message_reminders import stop_gate as held

    return held(store, project=project, recipient=recipient, session_id=session_id, ctx=ctx)


def user_prompt_submit(
    world: MessageWorld, request: PromptHookInput, /, *, ctx: CallContext
) -> Result[HookAnswer, MemeshError]:
    """The reminder of the messages waiting for the declared recipient, as context for this prompt; never fails."""
    answer = Answer()
    text = _waiting(world, request=request, ctx=ctx, answer=answer, hook="message-reminder", read=_prompt_reminder)
    if text is not None:
        answer.output = {"context": text}
        answer.record("message-reminder", "notified", reason="messages waiting for the declared recipient")
    return answer.done()


def stop_gate(world: MessageWorld, request: StopHookInput, /, *, ctx: CallContext) -> Result[HookAnswer, MemeshError]:
    """The turn held once per waiting message id this gate has not held a turn of this session for — whether or
    not a host accepted it, whatever stop_hook_active says; never under a host whose turn a block does not hold
    (one may load the same hooks file, and it must not block). Never fails."""
    answer = Answer()
    if not gate_applies(request["host"]):
        return answer.done()
    reason = _waiting(world, request=request, ctx=ctx, answer=answer, hook="message-gate", read=_held_turn)
    if reason is not None:
        answer.output = {"block": reason}
        answer.record("message-gate", "notified", reason="held the turn for waiting messages")
    return answer.done()
