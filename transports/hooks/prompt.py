"""UserPromptSubmit: remind the session of messages waiting for its declared recipient (MEMESH_RECIPIENT, or the
Claude Code channel's hosts/claude.json), as this session sees them; quiet without a recipient or a waiting one."""

from __future__ import annotations

from typing import Any

from memesh.transports.hooks.inbox import waiting_text
from memesh.transports.hooks.runner import Answer, HookCall

HOOK = "message-reminder"


def handle(payload: dict[str, Any], call: HookCall) -> Answer:
    from memesh.ops import message_reminders

    answer = Answer()
    text = waiting_text(payload, call, answer, HOOK, message_reminders.prompt_reminder)
    if text is None:
        return answer
    answer.output = {"hookSpecificOutput": {"hookEventName": "UserPromptSubmit", "additionalContext": text}}
    answer.record(HOOK, "notified", reason="messages waiting for the declared recipient")
    return answer
