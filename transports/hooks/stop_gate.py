"""The Claude Code Stop gate: holds the turn once per message id waiting for the session's declared recipient that
this gate has not held a turn of this session for yet — whether or not a host accepted it, and whatever
stop_hook_active says (its own per-id memory is what keeps it from holding twice). Never under Codex."""

from __future__ import annotations

from typing import Any

from memesh.transports.hooks.inbox import waiting_text
from memesh.transports.hooks.runner import Answer, HookCall

HOOK = "message-gate"


def handle(payload: dict[str, Any], call: HookCall) -> Answer:
    answer = Answer()
    if call.host != "claude-code":  # the gate is Claude Code's: Codex loads the same hooks file, and it must not block
        return answer
    from memesh.ops import message_reminders

    reason = waiting_text(payload, call, answer, HOOK, message_reminders.stop_gate)
    if reason is None:
        return answer
    answer.output = {"decision": "block", "reason": reason}
    answer.record(HOOK, "notified", reason="held the turn for waiting messages")
    return answer
