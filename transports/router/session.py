"""One registration the router holds: the host adapter's connection, its lease, and the deliveries waiting for its
host's answer. What is live right now is this memory (discover reads it); the database keeps presence for others."""

from __future__ import annotations

import asyncio
import time
from dataclasses import field
from typing import Any

from memesh.core.messages_model import SessionCard
from memesh.records import dataclass


def now_ms() -> int:
    return int(time.time() * 1000)


@dataclass
class Session:
    """One registered session: its connection, and the deliveries waiting for its host's answer."""

    session_id: str
    principal_id: str
    host_kind: str
    project: str
    work_summary: str | None
    generation: int
    lease_expires_at_ms: int
    writer: asyncio.StreamWriter
    order: int = 0  # registration order across sessions: a principal push goes to the newest eligible one
    activated: bool = False  # the adapter said its host takes pushes now: principal messages may use it
    pending: dict[str, asyncio.Future[dict[str, Any]]] = field(default_factory=dict)
    # delivery id → message id and "its host_accept is recorded", for the deliveries this connection accepted:
    # a host-native ACK is recorded only for one of them, and only after the acceptance.
    accepted: dict[str, tuple[str, asyncio.Event]] = field(default_factory=dict)

    def live(self) -> bool:
        return self.lease_expires_at_ms > now_ms() and not self.writer.is_closing()

    def card(self) -> dict[str, Any]:
        """The registration as discover lists it (spec, `message` discover: router data only)."""
        held = SessionCard(
            self.session_id,
            self.principal_id,
            self.host_kind,
            self.project,
            self.work_summary,
            self.generation,
            self.lease_expires_at_ms,
            disconnected=self.writer.is_closing(),
        )
        return held.card(now_ms())

    def fail_pending(self, reason: str) -> None:
        """Answer every delivery still waiting for this host as rejected (replaced, disconnected, stopped)."""
        for waiting in self.pending.values():
            if not waiting.done():
                waiting.set_result({"op": "reject", "reason": reason})
        self.pending.clear()
