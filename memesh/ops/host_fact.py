"""What a session's host answered a delivery, recorded by the router as a fact of that delivery (fact_source `host`):
the router writes it before it answers the sender, so a host-native ACK sent right behind an acceptance is always
ordered after it (docs/adr/0004-message-router.md, "Who records the host's answer").
"""

from __future__ import annotations

from contextlib import AbstractContextManager
from typing import Final, Protocol, cast

from returns.result import Result, Success

from memesh.context import CallContext
from memesh.core.messages_model import NewReceipt, Receipt
from memesh.errors import MemeshError
from memesh.generated.router.host_fact_input import HostFactInput
from memesh.generated.router.host_fact_output import HostFactOutput
from memesh.model import iso_time

# kind → the state it records
STATES: Final = {"host_accept": "accepted", "host_reject": "unavailable", "host_ack": "acknowledged"}


class HostFactStore(Protocol):
    def transaction(self) -> AbstractContextManager[None]: ...
    def add_receipt(self, new: NewReceipt) -> Receipt: ...


def record_host_fact(
    store: HostFactStore, request: HostFactInput, *, ctx: CallContext
) -> Result[HostFactOutput, MemeshError]:
    """The receipt recorded for the host's answer; never fails but for the database (the router then answers the
    sender without it, and the sender records the fact itself)."""
    fact = NewReceipt(
        delivery_id=request["delivery_id"],
        message_id=request["message_id"],
        kind=request["kind"],
        state=STATES[request["kind"]],
        detail=request.get("detail"),
        fact_source="host",
        actor=None,
        session_id=request.get("session_id"),
        source_host=request.get("host_kind"),
        idempotency_key=None,
        request_digest=None,
        created_at=iso_time(ctx.now),
    )
    with store.transaction():
        receipt = store.add_receipt(fact)
    return Success(cast(HostFactOutput, receipt.public()))
