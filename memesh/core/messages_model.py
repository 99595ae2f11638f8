"""Agent messages as the core sees them: plain values the store returns and the operation shapes into output."""

from __future__ import annotations

from typing import Any

from memesh.records import dataclass


@dataclass(frozen=True)
class NewMessage:
    """What one send stores: the message, its one delivery and its one event (ids chosen by the caller)."""

    message_id: str
    delivery_id: str
    project: str
    sender: str
    sender_host: str
    recipient: str
    target_kind: str
    intended_session: str | None
    content_type: str
    privacy: str
    correlation_id: str | None
    reply_to: str | None
    payload: str
    payload_bytes: int
    idempotency_key: str
    request_digest: str
    created_at: str
    author: str | None = None  # who sent it (issue 32): the member, else the local author; `sender` is a label


@dataclass(frozen=True)
class StoredMessage:
    """A message with its delivery and the event that announced it; `payload` is None once pruned."""

    event_id: int
    message_id: str
    delivery_id: str
    project: str
    recipient: str
    target_kind: str
    intended_session: str | None
    sender: str
    sender_host: str
    content_type: str
    privacy: str
    correlation_id: str | None
    reply_to: str | None
    payload: str | None
    payload_bytes: int
    request_digest: str
    created_at: str

    def routing(self) -> dict[str, Any]:
        """The event as poll returns it: routing metadata only, never the payload."""
        return {
            "event_id": self.event_id,
            "message_id": self.message_id,
            "delivery_id": self.delivery_id,
            "project": self.project,
            "recipient": self.recipient,
            "target_kind": self.target_kind,
            "intended_session": self.intended_session,
            "sender": self.sender,
            "sender_host": self.sender_host,
            "content_type": self.content_type,
            "privacy": self.privacy,
            "correlation_id": self.correlation_id,
            "reply_to": self.reply_to,
            "payload_bytes": self.payload_bytes,
            "created_at": self.created_at,
        }


@dataclass(frozen=True)
class NewReceipt:
    delivery_id: str
    message_id: str
    kind: str  # intake | ack | disposition | activation | dispatch | host_accept | host_reject | host_ack
    state: str | None
    detail: str | None
    fact_source: str  # receipt | workflow | router | host
    actor: str | None
    session_id: str | None
    source_host: str | None
    idempotency_key: str | None
    request_digest: str | None
    created_at: str


@dataclass(frozen=True)
class Receipt:
    receipt_id: int
    delivery_id: str
    message_id: str
    kind: str
    state: str | None
    detail: str | None
    fact_source: str
    actor: str | None
    session_id: str | None
    source_host: str | None
    request_digest: str | None
    created_at: str

    def public(self) -> dict[str, Any]:
        return {
            "receipt_id": self.receipt_id,
            "message_id": self.message_id,
            "delivery_id": self.delivery_id,
            "kind": self.kind,
            "state": self.state,
            "detail": self.detail,
            "fact_source": self.fact_source,
            "actor": self.actor,
            "session_id": self.session_id,
            "source_host": self.source_host,
            "created_at": self.created_at,
        }


@dataclass(frozen=True)
class SessionCard:
    """One registration the router made: a session of a principal, in one generation."""

    session_id: str
    principal_id: str
    host_kind: str
    project: str
    work_summary: str | None
    generation: int
    lease_expires_at_ms: int
    disconnected: bool

    def live(self, now_ms: int) -> bool:
        return not self.disconnected and self.lease_expires_at_ms > now_ms

    def card(self, now_ms: int) -> dict[str, Any]:
        """What discover returns: router data only (no host says which model a session runs)."""
        return {
            "session_id": self.session_id,
            "principal_id": self.principal_id,
            "host_kind": self.host_kind,
            "project": self.project,
            "model": None,
            "work_summary": self.work_summary,
            "active": self.live(now_ms),
            "generation": self.generation,
            "lease_expires_at_ms": self.lease_expires_at_ms,
        }
