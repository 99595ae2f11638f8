"""What waits for a session's declared recipient, for the message hooks: the prompt reminder, and the Stop gate
that holds a turn once per waiting message id per session (its memory is in the database: agent_stop_gate)."""

from __future__ import annotations

from contextlib import AbstractContextManager
from typing import Protocol

from memesh.context import CallContext
from memesh.core import messages as rules
from memesh.model import iso_time


class ReminderStore(Protocol):
    def transaction(self) -> AbstractContextManager[None]: ...
    def unread_deliveries(
        self, recipient: str, project: str, *, session: str | None = None, now_ms: int | None = None
    ) -> int: ...
    def waiting_messages(
        self, recipient: str, project: str, *, session: str | None, limit: int, now_ms: int | None = None
    ) -> list[tuple[str, str]]: ...
    def gate_blocked_before(self, session_id: str, message_ids: list[str]) -> set[str]: ...
    def record_gate_blocks(self, session_id: str, message_ids: list[str], when: str) -> None: ...


def _now_ms(ctx: CallContext) -> int:
    return int(ctx.now.timestamp() * 1000)


def prompt_reminder(
    store: ReminderStore, *, project: str, recipient: str, session_id: str | None, ctx: CallContext
) -> str | None:
    """The reminder for this prompt: what waits for `recipient` as this session sees it; None when nothing does."""
    now = _now_ms(ctx)
    total = store.unread_deliveries(recipient, project, session=session_id, now_ms=now)
    if not total:
        return None
    shown = store.waiting_messages(recipient, project, session=session_id, limit=rules.REMINDER_IDS_SHOWN, now_ms=now)
    return rules.prompt_reminder(shown, total, recipient, project)


def stop_gate(store: ReminderStore, *, project: str, recipient: str, session_id: str, ctx: CallContext) -> str | None:
    """The reason to hold this Stop, or None: the waiting message ids this gate has not held a turn of this session
    for yet, remembered in the same transaction so each id holds at most one turn per session."""
    with store.transaction():
        waiting = store.waiting_messages(
            recipient, project, session=session_id, limit=rules.GATE_WINDOW, now_ms=_now_ms(ctx)
        )
        held = store.gate_blocked_before(session_id, [message_id for message_id, _ in waiting])
        fresh = [(message_id, sender) for message_id, sender in waiting if message_id not in held]
        if not fresh:
            return None
        store.record_gate_blocks(session_id, [message_id for message_id, _ in fresh], iso_time(ctx.now))
    return rules.gate_reason(fresh, recipient, project)
