"""The message tool's receipt facts: intake, ack, disposition and activation (each idempotent on its key and
independent of the others), and the ordered audit of one delivery."""

from __future__ import annotations

from contextlib import AbstractContextManager
from typing import Any, Protocol

from returns.result import Failure, Result, Success

from memesh.context import CallContext
from memesh.core import messages as rules
from memesh.core.messages_model import NewReceipt, Receipt, StoredMessage
from memesh.errors import ErrorCode, MemeshError
from memesh.model import iso_time

# action → (the field holding its state, where the fact comes from)
_KINDS: dict[str, tuple[str | None, str]] = {
    "intake": ("intake_state", "receipt"),
    "ack": (None, "receipt"),
    "disposition": ("disposition", "workflow"),
    "activation": ("activation", "receipt"),
}
# Only the intended session may record these for a delivery that names one (spec: intake, disposition).
_SESSION_BOUND = frozenset({"intake", "disposition"})


class ReceiptStore(Protocol):
    def transaction(self) -> AbstractContextManager[None]: ...
    def delivered(self, project: str, recipient: str, message_id: str) -> StoredMessage | None: ...
    def receipt_with_key(self, delivery_id: str, kind: str, key: str) -> Receipt | None: ...
    def add_receipt(self, new: NewReceipt) -> Receipt: ...
    def receipts_of(self, delivery_id: str) -> list[Receipt]: ...
    def session_registered_in(self, session_id: str, project: str) -> bool: ...


def record_receipt(
    store: ReceiptStore, fields: dict[str, Any], ctx: CallContext
) -> Result[dict[str, Any], MemeshError]:
    """Record one receipt fact; an exact retry returns the first one (created false), a changed one is refused."""
    action = fields["action"]
    state_field, source = _KINDS[action]
    state = fields.get(state_field) if state_field else None
    detail = fields.get("detail")
    key = fields["idempotency_key"]
    with store.transaction():
        stored = store.delivered(fields["project"], fields["recipient"], fields["message_id"])
        if stored is None:
            return Failure(_not_delivered(fields))
        refused = _other_session(store, stored, action, ctx)
        if refused is not None:
            return Failure(refused)
        digest = rules.digest({"kind": action, "state": state, "detail": detail})
        existing = store.receipt_with_key(stored.delivery_id, action, key)
        if existing is not None:
            if existing.request_digest != digest:
                return Failure(rules.conflict(f"{action} receipt", key))
            return Success({**_head(action, stored), "receipt": existing.public(), "created": False})
        receipt = store.add_receipt(
            NewReceipt(
                delivery_id=stored.delivery_id,
                message_id=stored.message_id,
                kind=action,
                state=state,
                detail=detail,
                fact_source=source,
                actor=stored.recipient,
                session_id=ctx.caller_session,
                source_host=ctx.source_host,
                idempotency_key=key,
                request_digest=digest,
                created_at=iso_time(ctx.now),
            )
        )
    return Success({**_head(action, stored), "receipt": receipt.public(), "created": True})


def _other_session(store: ReceiptStore, stored: StoredMessage, action: str, ctx: CallContext) -> MemeshError | None:
    """intended_for_other_session when this caller is not the one session the delivery is meant for."""
    if action not in _SESSION_BOUND:
        return None
    caller = ctx.caller_session
    if stored.intended_session is not None and caller != stored.intended_session:
        return MemeshError(
            ErrorCode.INTENDED_FOR_OTHER_SESSION,
            f"intended_for_other_session: message {stored.message_id} is meant for session "
            f"{stored.intended_session!r}; only that session can record {action} "
            f"(this caller is {'session ' + repr(caller) if caller else 'not a session'})",
            {"message_id": stored.message_id, "intended_session": stored.intended_session},
        )
    if (
        stored.target_kind == "session"
        and caller is not None
        and caller != stored.recipient
        and store.session_registered_in(caller, stored.project)
    ):
        return MemeshError(
            ErrorCode.INTENDED_FOR_OTHER_SESSION,
            f"intended_for_other_session: message {stored.message_id} was sent to session {stored.recipient!r}; "
            f"session {caller!r} cannot record {action} for it",
            {"message_id": stored.message_id, "intended_session": stored.recipient},
        )
    return None


def receipts(store: ReceiptStore, fields: dict[str, Any]) -> Result[dict[str, Any], MemeshError]:
    """Every fact of one delivery in the order it was recorded, each naming its fact_source."""
    stored = store.delivered(fields["project"], fields["recipient"], fields["message_id"])
    if stored is None:
        return Failure(_not_delivered(fields))
    facts = [receipt.public() for receipt in store.receipts_of(stored.delivery_id)]
    return Success({**_head("receipts", stored), "receipts": facts})


def _head(action: str, stored: StoredMessage) -> dict[str, Any]:
    return {
        "action": action,
        "project": stored.project,
        "recipient": stored.recipient,
        "message_id": stored.message_id,
        "delivery_id": stored.delivery_id,
    }


def _not_delivered(fields: dict[str, Any]) -> MemeshError:
    # One answer whether the message does not exist or was sent to someone else: no oracle for other inboxes.
    return MemeshError.not_found(
        f"message_id: no message {fields['message_id']!r} for recipient {fields['recipient']!r} in this project",
        message_id=fields["message_id"],
    )
