"""UserPromptSubmit: remind the session of messages waiting for its declared recipient (MEMESH_RECIPIENT, or the
Claude Code channel's hosts/claude.json), as this session sees them; quiet without a recipient or a waiting one."""

from __future__ import annotations

from typing import Any

from memesh.transports.hooks.inbox import declared_recipient, hook_caller, session_folder
from memesh.transports.hooks.runner import Answer

HOOK = "message-reminder"


def handle(payload: dict[str, Any], call: Any) -> Answer:
    answer = Answer()
    host, env, cwd = hook_caller(call)
    recipient, problem = declared_recipient(host, env)
    if problem is not None:
        answer.record(HOOK, "error", reason=problem)
        return answer
    if recipient is None:  # nothing is recorded: most sessions declare no recipient, and this runs every prompt
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
        text = message_reminders.prompt_reminder(
            store,
            project=project,
            recipient=recipient,
            session_id=str(payload["session_id"]),
            ctx=CallContext(source_host=host or "", agent_view=True, now=datetime.now(UTC)),
        )
    finally:
        store.close()
    if text is None:
        return answer
    answer.output = {"hookSpecificOutput": {"hookEventName": "UserPromptSubmit", "additionalContext": text}}
    answer.record(HOOK, "notified", reason="messages waiting for the declared recipient")
    return answer
