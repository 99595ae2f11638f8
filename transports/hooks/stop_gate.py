"""The Claude Code Stop gate: holds the turn once per message id waiting for the session's declared recipient that
this gate has not held a turn of this session for yet — whether or not a host accepted it, and whatever
stop_hook_active says (its own per-id memory is what keeps it from holding twice). Never under Codex."""

from __future__ import annotations

from typing import Any

from memesh.transports.hooks.inbox import declared_recipient, hook_caller, session_folder
from memesh.transports.hooks.runner import Answer

HOOK = "message-gate"


def handle(payload: dict[str, Any], call: Any) -> Answer:
    answer = Answer()
    host, env, cwd = hook_caller(call)
    if host != "claude-code":  # the gate is Claude Code's: Codex loads the same hooks file, and it must not block
        return answer
    recipient, problem = declared_recipient(host, env)
    if problem is not None:
        answer.record(HOOK, "error", reason=problem)
        return answer
    if recipient is None:
        return answer
    from datetime import UTC, datetime

    from memesh.app.database import StoreError
    from memesh.app.database import open_database as open_store
    from memesh.context import CallContext
    from memesh.ops import message_reminders
    from memesh.transports.hooks.context import project_of

    project = project_of(session_folder(payload, cwd))
    try:
        store = open_store()
    except StoreError:
        answer.record(HOOK, "error", reason="database unreadable")
        return answer
    try:
        reason = message_reminders.stop_gate(
            store,
            project=project,
            recipient=recipient,
            session_id=str(payload["session_id"]),
            ctx=CallContext(source_host=host, agent_view=True, now=datetime.now(UTC)),
        )
    finally:
        store.close()
    if reason is None:
        return answer
    answer.output = {"decision": "block", "reason": reason}
    answer.record(HOOK, "notified", reason="held the turn for waiting messages")
    return answer
