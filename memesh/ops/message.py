"""message: durable exact-recipient messages between agents sharing one MeMesh database, and live delivery to an
exact session through the local router."""

from __future__ import annotations

import json
from typing import Any, Protocol, cast

from returns.result import Failure, Result, Success

from memesh import hosts
from memesh.context import CallContext
from memesh.core import messages as rules
from memesh.core.messages_model import NewMessage, NewReceipt, Receipt, SessionCard, StoredMessage
from memesh.errors import ErrorCode, MemeshError
from memesh.generated.tools.message_input import MessageInput
from memesh.generated.tools.message_output import MessageOutput
from memesh.model import iso_time
from memesh.ops.message_receipts import ReceiptStore, receipts, record_receipt
from memesh.values import NativeOutcome

Output = dict[str, Any]
RECEIPT_ACTIONS = frozenset({"intake", "ack", "disposition", "activation"})


class MessageStore(ReceiptStore, Protocol):
    def sent_with_key(self, project: str, sender: str, key: str) -> StoredMessage | None: ...
    def payload_bytes_stored(self) -> int: ...
    def insert_message(self, new: NewMessage) -> StoredMessage: ...
    def events_after(
        self, project: str, recipient: str, target_kind: str, position: int, limit: int
    ) -> list[StoredMessage]: ...
    def cursor_scope(self, token: str) -> tuple[str, str, str, int] | None: ...
    def cursor_for(
        self, project: str, recipient: str, target_kind: str, position: int, *, token: str, created_at: str
    ) -> str: ...
    def latest_session(self, session_id: str) -> SessionCard | None: ...


def message(store: MessageStore, request: MessageInput, *, ctx: CallContext) -> Result[MessageOutput, MemeshError]:
    """Run one message action; Failure with the spec's delivery codes, resource.not-found for a message this
    recipient was not sent, validation.bad-body for a scope that is a path or holds a credential, a sender or
    idempotency key holding a credential, or a foreign cursor."""
    checked = rules.checked_fields(cast(dict[str, Any], request))
    if isinstance(checked, Failure):
        return checked
    fields = checked.unwrap()
    action = fields["action"]
    if action == "send":
        result = send(store, fields, ctx)
    elif action == "discover":
        result = discover(fields, ctx)
    elif action == "poll":
        result = poll(store, fields, ctx)
    elif action == "fetch":
        result = fetch(store, fields)
    elif action in RECEIPT_ACTIONS:
        result = record_receipt(store, fields, ctx)
    else:
        result = receipts(store, fields)
    return cast(Result[MessageOutput, MemeshError], result)


# --- send ---------------------------------------------------------------------------------------------------------


def send(
    store: MessageStore, fields: dict[str, Any], ctx: CallContext, *, push: bool = True
) -> Result[Output, MemeshError]:
    """Store one message, delivery and event in one transaction; for a session target, then hand it to the host;
    for a principal target, then offer it to one eligible live session of that principal (best effort)."""
    target_kind = fields.get("target_kind", "principal")
    if "intended_session" in fields and target_kind != "principal":
        return Failure(MemeshError.bad_body('intended_session: only with target_kind "principal"'))
    if "fallback_to_principal" in fields and target_kind != "session":
        return Failure(MemeshError.bad_body('fallback_to_principal: only with target_kind "session"'))
    content_type = fields.get("content_type", "text/plain")
    encoded = rules.encoded_payload(fields["payload"], content_type)
    if isinstance(encoded, Failure):
        return encoded
    payload = encoded.unwrap()
    intended = fields.get("intended_session")
    if intended is not None:
        card = store.latest_session(intended)
        if card is not None and card.host_kind not in rules.NAMEABLE_HOSTS:
            return Failure(
                MemeshError.bad_body(
                    f"intended_session: session {intended!r} was registered through {card.host_kind!r}, which cannot "
                    f"say which session records intake; name {hosts.NAMEABLE_PHRASE}"
                )
            )
    quota = rules.parse_quota(ctx.message_quota())
    if isinstance(quota, Failure):
        return quota
    request = {key: fields.get(key) for key in _SEND_REQUEST_FIELDS}
    request.update(target_kind=target_kind, content_type=content_type, privacy=fields.get("privacy", "private"))
    digest = rules.digest(request)
    with store.transaction():
        stored = store.sent_with_key(fields["project"], fields["sender"], fields["idempotency_key"])
        created = stored is None
        if stored is not None and stored.request_digest != digest:
            return Failure(rules.conflict("message", fields["idempotency_key"]))
        if stored is None:
            size = len(payload.encode("utf-8"))
            refused = rules.over_quota(quota.unwrap(), store.payload_bytes_stored(), size)
            if refused is not None:
                return Failure(refused)
            stored = store.insert_message(_new_message(fields, request, payload, size=size, digest=digest, ctx=ctx))
    out = _sent(stored, created)
    if target_kind == "principal":
        return Success(_push(store, stored, out, ctx) if created and push else _with_acceptance(store, stored, out))
    return _deliver_natively(store, stored, out, fields, ctx)


_SEND_REQUEST_FIELDS = (
    "project",
    "recipient",
    "intended_session",
    "fallback_to_principal",
    "correlation_id",
    "reply_to",
    "payload",
)


def _new_message(
    fields: dict[str, Any], request: dict[str, Any], payload: str, *, size: int, digest: str, ctx: CallContext
) -> NewMessage:
    return NewMessage(
        message_id=f"msg_{ctx.new_token()}",
        delivery_id=f"dlv_{ctx.new_token()}",
        project=fields["project"],
        sender=fields["sender"],
        sender_host=ctx.source_host,  # provenance from the transport, never from arguments
        author=ctx.author(),
        recipient=fields["recipient"],
        target_kind=request["target_kind"],
        intended_session=fields.get("intended_session"),
        content_type=request["content_type"],
        privacy=request["privacy"],
        correlation_id=fields.get("correlation_id"),
        reply_to=fields.get("reply_to"),
        payload=payload,
        payload_bytes=size,
        idempotency_key=fields["idempotency_key"],
        request_digest=digest,
        created_at=iso_time(ctx.now),
    )


def _sent(stored: StoredMessage, created: bool) -> Output:
    return {
        "action": "send",
        "message_id": stored.message_id,
        "delivery_id": stored.delivery_id,
        "event_id": stored.event_id,
        "created": created,
        "project": stored.project,
        "recipient": stored.recipient,
        "target_kind": cast(Any, stored.target_kind),
        "intended_session": stored.intended_session,
        "sender_host": stored.sender_host,
        "payload_bytes": stored.payload_bytes,
        "created_at": stored.created_at,
    }


def _deliver_natively(
    store: MessageStore, stored: StoredMessage, out: Output, fields: dict[str, Any], ctx: CallContext
) -> Result[Output, MemeshError]:
    """Exact-session delivery: the envelope through the router to that session's host, returning after host_accept.

    Every outcome is recorded as a fact of the delivery; the durable message stays for scoped recovery. Nothing is
    rerouted, and a failed native delivery is not replayed when the session later registers.
    """
    accepted = _with_acceptance(store, stored, out)
    if "host_accept" in accepted:  # an exact retry of a send the host already accepted
        return Success(accepted)
    text = _envelope(stored)
    recovery = {"message_id": stored.message_id, "delivery_id": stored.delivery_id}
    too_large = rules.envelope_too_large(text)
    if too_large is not None:
        _fact(store, stored, "dispatch", "too_large", generation=None, ctx=ctx)
        return Failure(MemeshError(too_large.code, too_large.message, {**too_large.data, **recovery}))
    outcome = ctx.router().deliver(
        stored.project, stored.recipient, text, message_id=stored.message_id, delivery_id=stored.delivery_id
    )
    if outcome.status == "accepted":
        return Success({**out, "host_accept": _acceptance(_host_fact(store, stored, outcome, ctx))})
    if outcome.status == "unreachable":
        _fact(store, stored, "dispatch", "router_unreachable", generation=None, ctx=ctx)
        return Failure(
            MemeshError(
                ErrorCode.ROUTER_UNREACHABLE,
                f"router_unreachable: the local MeMesh router is not running ({outcome.reason}); the message "
                f"{stored.message_id} is stored for scoped recovery. Start it with `memesh message router`.",
                recovery,
            )
        )
    _host_fact(store, stored, outcome, ctx)
    unavailable = MemeshError(
        ErrorCode.RECIPIENT_UNAVAILABLE,
        f"recipient_unavailable: session {stored.recipient!r} did not accept the message ({outcome.reason}); "
        f"{stored.message_id} is stored for scoped recovery and will not be replayed",
        recovery,
    )
    if fields.get("fallback_to_principal"):
        return _fallback(store, stored, fields, unavailable, ctx)
    return Failure(unavailable)


def _fallback(
    store: MessageStore, refused: StoredMessage, fields: dict[str, Any], error: MemeshError, ctx: CallContext
) -> Result[Output, MemeshError]:
    """The refused session's principal gets the message, meant for that session alone (intended_session)."""
    card = store.latest_session(refused.recipient)
    if card is None or card.project != refused.project:
        return Failure(
            MemeshError(error.code, f"{error.message}; no fallback: this session never registered here", error.data)
        )
    if card.host_kind not in rules.NAMEABLE_HOSTS:
        return Failure(
            MemeshError(
                error.code,
                f"{error.message}; no fallback: the session registered through {card.host_kind!r}, which cannot "
                "name itself when it records intake",
                error.data,
            )
        )
    again = {key: value for key, value in fields.items() if key != "fallback_to_principal"}
    again.update(
        target_kind="principal",
        recipient=card.principal_id,
        intended_session=refused.recipient,
        idempotency_key=f"{fields['idempotency_key']}#fallback",
    )
    match send(store, again, ctx, push=False):  # the session just refused it: not offered to it again
        case Success(out):
            connected = card.live(int(ctx.now.timestamp() * 1000))
            fallback: dict[str, Any] = {
                "refused_message_id": refused.message_id,
                "session_id": refused.recipient,
                "intended_session_connected": connected,
            }
            if not connected:
                fallback["note"] = f"only session {refused.recipient} can take this message in, when it next runs"
            return Success({**out, "fallback": fallback})
        case Failure() as failed:
            return failed
    raise AssertionError("unreachable")  # pragma: no cover


def _push(store: MessageStore, stored: StoredMessage, out: Output, ctx: CallContext) -> Output:
    """Offer a new principal message to one eligible live session of its principal through the router (only the
    intended session when one is named). Best effort: the durable send has succeeded whatever happens here, and
    nothing is recorded unless a session was handed the envelope (host_accept or host_reject)."""
    text = _envelope(stored)
    if rules.envelope_too_large(text) is not None:  # it waits in the inbox; only a session target must fit
        return out
    outcome = ctx.router().push(
        stored.project,
        stored.recipient,
        stored.intended_session,
        text,
        message_id=stored.message_id,
        delivery_id=stored.delivery_id,
    )
    if outcome.status not in ("accepted", "unavailable"):
        return out
    fact = _host_fact(store, stored, outcome, ctx)
    return {**out, "host_accept": _acceptance(fact)} if outcome.status == "accepted" else out


def _envelope(stored: StoredMessage) -> str:
    meta = {key: value for key, value in stored.routing().items() if key not in ("event_id", "payload_bytes")}
    return rules.envelope(meta, stored.payload or "null")


def _with_acceptance(store: MessageStore, stored: StoredMessage, out: Output) -> Output:
    """`out` with the host acceptance already recorded for this delivery, if any (an exact retry)."""
    accepted = next((r for r in store.receipts_of(stored.delivery_id) if r.kind == "host_accept"), None)
    return {**out, "host_accept": _acceptance(accepted.public())} if accepted is not None else out


def _host_fact(store: MessageStore, stored: StoredMessage, outcome: NativeOutcome, ctx: CallContext) -> dict[str, Any]:
    """The host's answer as a fact of the delivery: the router's record of it, or (a router that did not record
    it) the sender's own."""
    if outcome.receipt is not None:
        return outcome.receipt
    accepted = outcome.status == "accepted"
    return _fact(
        store,
        stored,
        "host_accept" if accepted else "host_reject",
        "accepted" if accepted else "unavailable",
        generation=outcome.generation,
        ctx=ctx,
        detail=None if accepted else outcome.reason or None,
        session_id=outcome.session_id,
    ).public()


def _fact(
    store: MessageStore,
    stored: StoredMessage,
    kind: str,
    state: str,
    *,
    generation: int | None,
    ctx: CallContext,
    detail: str | None = None,
    session_id: str | None = None,
) -> Receipt:
    with store.transaction():
        return store.add_receipt(
            NewReceipt(
                delivery_id=stored.delivery_id,
                message_id=stored.message_id,
                kind=kind,
                state=state,
                detail=detail if detail is not None else (None if generation is None else f"generation {generation}"),
                fact_source="router" if kind == "dispatch" else "host",
                actor=None,
                session_id=session_id or (stored.recipient if stored.target_kind == "session" else None),
                source_host=ctx.source_host,
                idempotency_key=None,
                request_digest=None,
                created_at=iso_time(ctx.now),
            )
        )


def _acceptance(receipt: dict[str, Any]) -> dict[str, Any]:
    detail = receipt.get("detail") or ""
    words = detail.split()
    generation = int(words[1]) if len(words) > 1 and words[0] == "generation" and words[1].isdigit() else 0
    return {
        "session_id": receipt.get("session_id") or "",
        "generation": generation,
        "accepted_at": receipt["created_at"],
    }


# --- discover, poll, fetch ----------------------------------------------------------------------------------------


def discover(fields: dict[str, Any], ctx: CallContext) -> Result[Output, MemeshError]:
    """Live registrations in the project, as the router knows them; router_unreachable when it is not running."""
    cards = ctx.router().discover(fields["project"], fields.get("limit", rules.DISCOVER_DEFAULT_LIMIT))
    if cards is None:
        return Failure(
            MemeshError(
                ErrorCode.ROUTER_UNREACHABLE,
                "router_unreachable: the local MeMesh router is not running, so there are no live registrations to "
                "read (durable sends to a principal still work). Start it with `memesh message router`.",
            )
        )
    return Success({"action": "discover", "project": fields["project"], "registrations": cards})


def poll(store: MessageStore, fields: dict[str, Any], ctx: CallContext) -> Result[Output, MemeshError]:
    """One bounded batch of events (routing metadata only) after the cursor, and the cursor to continue from."""
    project, recipient = fields["project"], fields["recipient"]
    target_kind = fields.get("target_kind", "principal")
    position = 0
    if "cursor" in fields:
        scope = store.cursor_scope(fields["cursor"])
        if scope is None or scope[:3] != (project, recipient, target_kind):
            return Failure(
                MemeshError.bad_body(
                    "cursor: unknown, or issued for another project or recipient; omit it to start over"
                )
            )
        position = scope[3]
    events = store.events_after(
        project, recipient, target_kind, position, fields.get("limit", rules.POLL_DEFAULT_LIMIT)
    )
    if events:
        position = events[-1].event_id
    with store.transaction():
        cursor = store.cursor_for(
            project, recipient, target_kind, position, token=f"cur_{ctx.new_token()}", created_at=iso_time(ctx.now)
        )
    return Success(
        {
            "action": "poll",
            "project": project,
            "recipient": recipient,
            "target_kind": target_kind,
            "events": [cast(Any, event.routing()) for event in events],
            "next_cursor": cursor,
            "timed_out": False,
        }
    )


def fetch(store: MessageStore, fields: dict[str, Any]) -> Result[Output, MemeshError]:
    """The payload routed to this recipient; a read that records nothing (no intake, no ACK)."""
    target_kind = fields.get("target_kind", "principal")
    stored = store.delivered(fields["project"], fields["recipient"], fields["message_id"])
    if stored is None or stored.target_kind != target_kind:
        return Failure(_not_delivered(fields))
    return Success(
        {
            "action": "fetch",
            **{key: value for key, value in stored.routing().items() if key != "event_id"},
            "payload": None if stored.payload is None else json.loads(stored.payload),
            "payload_pruned": stored.payload is None,
        }
    )


def _not_delivered(fields: dict[str, Any]) -> MemeshError:
    # One answer whether the message does not exist or belongs to someone else: no payload, and no oracle.
    return MemeshError.not_found(
        f"message_id: no message {fields['message_id']!r} for recipient {fields['recipient']!r} in this project"
        + (" with that target_kind" if "target_kind" in fields else ""),
        message_id=fields["message_id"],
    )
