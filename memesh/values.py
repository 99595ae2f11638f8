"""Plain values that cross the layers: the rows a store adapter hands operations, the refusals it raises to them, and
the router as the message tool sees it. On the values floor, beside errors, context, model and paths: every layer may
import it, and it imports nothing of MeMesh above that floor, so an operation's store protocol can name these types
without importing a store.
"""

from __future__ import annotations

from typing import Any, NamedTuple, Protocol

from memesh.records import dataclass

# --- briefing and hooks: what the store reads for what reaches an agent on its own ---


class CandidateRow(NamedTuple):
    """One briefing candidate as read (a named tuple: a briefing reads up to 2200 of them, ~5x faster to build than a
    frozen dataclass)."""

    id: int
    name: str
    type: str
    title: str | None
    activity: str | None
    access_count: int
    last_accessed_at: str | None
    confidence: float
    recall_hits: int
    recall_misses: int
    author: str | None = None  # who wrote it (issue 32); None before authors were recorded
    namespace: str | None = None  # a `personal` memory reaches only its author's briefing on a remote listener


@dataclass(frozen=True)
class Inbox:
    """Unread deliveries for one exact recipient, and whether that recipient was ever addressed in the project."""

    unread: int
    known: bool


# --- projects ---


class RenameRefused(Exception):
    """A write a project rename made did not read back as written (a trigger ignored or undid it): the store raises
    it inside the rename's transaction, and the operation reports it."""


# --- the local router, as the message tool reaches it ---


@dataclass(frozen=True)
class NativeOutcome:
    """What the router answered an exact-session delivery: accepted by the host, unavailable, or not reached."""

    status: str  # accepted | unavailable | unreachable | none (a principal push found no eligible session)
    generation: int | None = None
    reason: str = ""
    receipt: dict[str, Any] | None = None  # the host fact the router recorded, when it did
    session_id: str | None = None  # the session that was handed it (a principal push names the one it chose)


class RouterPort(Protocol):
    """The local router as the message tool uses it (memesh.adapters.router_client.RouterClient; a fake in tests)."""

    def discover(self, project: str, limit: int) -> list[dict[str, Any]] | None:
        """Live registrations in `project`; None when the router cannot be reached."""
        ...

    def deliver(
        self, project: str, session_id: str, envelope: str, *, message_id: str = "", delivery_id: str = ""
    ) -> NativeOutcome:
        """Hand `envelope` to exactly `session_id`'s host and wait for its acceptance (recorded by the router as a
        fact of the delivery when its ids are given)."""
        ...

    def push(
        self,
        project: str,
        principal_id: str,
        intended_session: str | None,
        envelope: str,
        *,
        message_id: str,
        delivery_id: str,
    ) -> NativeOutcome:
        """Best effort: hand a principal message to one eligible live session of that principal (only
        `intended_session` when given); "none" when there is no such session."""
        ...
