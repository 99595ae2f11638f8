"""Declaration of `memesh message …`: flags and help only (the work: actions/message.py, imported when run)."""

from __future__ import annotations

from typing import Annotated, Literal

from cyclopts import App, Parameter

from memesh.transports.cli.shapes import Int, OptionalInt, Switch

message = App(
    name="message",
    help="Hand work between agents through durable exact-recipient messages (the message tool, on the command line).",
)
storage = App(name="storage", help="Owner accounting of message storage, and bounded payload retention.")
message.command(storage)

TargetKind = Literal["principal", "session"]
Recipient = Annotated[str | None, Parameter(help="The exact recipient (default: MEMESH_RECIPIENT).")]


@message.command
def send(
    *,
    project: str,
    sender: str,
    recipient: str,
    idempotency_key: str,
    target_kind: TargetKind = "principal",
    intended_session: str | None = None,
    fallback_to_principal: Switch = False,
    content_type: Literal["text/plain", "application/json"] = "text/plain",
    privacy: Literal["private", "team"] = "private",
    correlation_id: str | None = None,
    reply_to: str | None = None,
    payload_stdin: Switch = False,
    payload: Annotated[str | None, Parameter(show=False)] = None,
    json_: Switch = False,
) -> int:
    """Durably send one exact-recipient payload, read from stdin (64 KiB max; a session envelope 16 KiB).

    Parameters
    ----------
    project
        The project ID.
    sender
        Who sends (provenance, stored as given).
    recipient
        The principal, or with --target-kind session the exact live session id.
    idempotency_key
        A stable key: the same send again returns the same IDs.
    target_kind
        principal (durable store-and-forward) or session (the exact live session, through the router).
    intended_session
        With a principal target: the one session of it the message is meant for.
    fallback_to_principal
        With a session target: if that session refuses, send to its principal instead.
    content_type
        text/plain (stdin as text) or application/json (stdin parsed as JSON).
    privacy
        private (default) or team: retained metadata.
    correlation_id
        Conversation or task correlation.
    reply_to
        The message ID this answers.
    payload_stdin
        Read the payload from stdin (the only way: a payload on the command line would show in process listings).
    json_
        Print the result as JSON.
    """
    from memesh.transports.cli.actions import message as cli_messages

    return cli_messages.send(locals())


@message.command
def watch(
    *,
    project: str,
    recipient: Recipient = None,
    cursor: str | None = None,
    wait_ms: Int = 30_000,
    limit: OptionalInt = None,
    target_kind: TargetKind = "principal",
) -> int:
    """Print `ready`, then one bounded `events` or `timeout` JSONL record with next_cursor; persist the cursor.

    Parameters
    ----------
    project
        The project ID.
    cursor
        The next_cursor of the previous watch (omit to start from the beginning).
    wait_ms
        How long to wait for an event (0-30000, default 30000).
    limit
        Events per batch (1-100, default 50).
    target_kind
        principal (default) or session.
    """
    from memesh.transports.cli.actions import message as cli_messages

    return cli_messages.watch(locals())


@message.command
def discover(*, project: str, limit: OptionalInt = None, json_: Switch = False) -> int:
    """The live sessions the local router has registered in the project."""
    from memesh.transports.cli.actions import message as cli_messages

    return cli_messages.simple("discover", locals())


@message.command
def fetch(
    *,
    project: str,
    message_id: str,
    recipient: Recipient = None,
    target_kind: TargetKind | None = None,
    json_: Switch = False,
) -> int:
    """Fetch one payload routed to the recipient, without acknowledging it."""
    from memesh.transports.cli.actions import message as cli_messages

    return cli_messages.simple("fetch", locals())


@message.command
def intake(
    *,
    project: str,
    message_id: str,
    idempotency_key: str,
    state: Literal["fetched", "ingested"],
    recipient: Recipient = None,
    json_: Switch = False,
) -> int:
    """Record `fetched` or `ingested` (not an ACK). Run from the session the message is meant for."""
    from memesh.transports.cli.actions import message as cli_messages

    return cli_messages.simple("intake", locals())


@message.command
def ack(
    *, project: str, message_id: str, idempotency_key: str, recipient: Recipient = None, json_: Switch = False
) -> int:
    """Record the recipient's explicit acknowledgement."""
    from memesh.transports.cli.actions import message as cli_messages

    return cli_messages.simple("ack", locals())


@message.command
def disposition(
    *,
    project: str,
    message_id: str,
    idempotency_key: str,
    disposition: Literal["accepted", "rejected", "completed", "cancelled", "deferred"],
    detail: str | None = None,
    recipient: Recipient = None,
    json_: Switch = False,
) -> int:
    """Record the workflow disposition, independently of the ACK."""
    from memesh.transports.cli.actions import message as cli_messages

    return cli_messages.simple("disposition", locals())


@message.command
def activation(
    *,
    project: str,
    message_id: str,
    idempotency_key: str,
    activation: Literal["woken", "manual_resume_required", "unsupported", "failed"],
    detail: str | None = None,
    recipient: Recipient = None,
    json_: Switch = False,
) -> int:
    """Record host activation, independently of ACK and disposition."""
    from memesh.transports.cli.actions import message as cli_messages

    return cli_messages.simple("activation", locals())


@message.command
def receipts(*, project: str, message_id: str, recipient: Recipient = None, json_: Switch = False) -> int:
    """The ordered receipt facts of one message delivered to the recipient."""
    from memesh.transports.cli.actions import message as cli_messages

    return cli_messages.simple("receipts", locals())


@message.command
def router() -> int:
    """Run the local router in the foreground (owner-only socket router.sock in the MeMesh folder); Ctrl-C stops."""
    from memesh.transports.router.server import main

    return main()


@storage.command
def report(*, cutoff: str, json_: Switch = False) -> int:
    """Payload bytes, protected and prunable rows, audit counts, reusable pages, main/WAL sizes.

    Parameters
    ----------
    cutoff
        ISO timestamp: dispositions older than this count as prunable.
    """
    from memesh.transports.cli.actions import message as cli_messages

    return cli_messages.storage_report(cutoff, as_json=json_)


@storage.command
def prune(*, cutoff: str, batch_size: Int = 100, apply: Switch = False, json_: Switch = False) -> int:
    """Dry run by default; with --apply, replace payloads whose every delivery is ACKed with an old terminal
    disposition. Lifecycle audit rows are kept.

    Parameters
    ----------
    cutoff
        ISO timestamp: only dispositions older than this.
    batch_size
        Messages per transaction (1-1000, default 100).
    apply
        Really drop the payloads (otherwise only count them).
    """
    from memesh.transports.cli.actions import message as cli_messages

    return cli_messages.storage_prune(cutoff, batch=batch_size, apply=apply, as_json=json_)
