"""`memesh message …` once its flags are parsed: build the message tool's input, call it through dispatch, print."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Mapping
from typing import Any

from returns.result import Failure, Result, Success

from memesh.app.registry import MESSAGE
from memesh.errors import MemeshError
from memesh.transports.cli.actions.memory import cli_resources, report, run_op
from memesh.transports.cli.exits import OK, dumps, fail, usage

RECIPIENT_ENV = "MEMESH_RECIPIENT"
# Flag name → the tool's field, where they differ.
_FIELD = {"state": "intake_state"}
_NOT_FIELDS = {"json_", "payload", "payload_stdin", "cli_messages"}  # and the module locals() holds


def _arguments(action: str, flags: dict[str, Any]) -> dict[str, Any] | str:
    """The tool input from the flags given; a usage message when no recipient is known."""
    arguments: dict[str, Any] = {"action": action}
    for name, value in flags.items():
        if name in _NOT_FIELDS or value is None or value is False:
            continue
        arguments[_FIELD.get(name, name)] = value
    if "recipient" in flags and arguments.get("recipient") is None:
        from_env = os.environ.get(RECIPIENT_ENV, "").strip()
        if not from_env:
            return f"--recipient is required (or set {RECIPIENT_ENV})."
        arguments["recipient"] = from_env
    return arguments


def _call(arguments: dict[str, Any]) -> Result[Any, MemeshError]:
    # The CLI's context carries the calling session from the environment (the intended-session rule), as MCP's does.
    return run_op(MESSAGE, arguments)


def send(flags: dict[str, Any]) -> int:
    """Send with the payload from stdin (never from the command line, where process listings show it)."""
    as_json = bool(flags["json_"])
    if flags["payload"] is not None:
        return usage("--payload is refused: pipe the payload on stdin (--payload-stdin), so it stays out of ps.")
    text = sys.stdin.read()
    payload: Any = text
    if flags["content_type"] == "application/json":
        try:
            payload = json.loads(text)
        except (ValueError, RecursionError):
            return fail(MemeshError.bad_body("payload: stdin is not valid JSON"), as_json=as_json)
    arguments = _arguments("send", flags)
    assert isinstance(arguments, dict)  # send's recipient is a required flag
    arguments["payload"] = payload
    return report(_call(arguments), as_json=as_json, text=_sent_text)


def _sent_text(out: Mapping[str, Any]) -> str:
    line = f"sent {out['message_id']} to {out['recipient']} (delivery {out['delivery_id']})"
    if not out["created"]:
        line += " — already sent with this key; same IDs"
    if "host_accept" in out:
        line += f"; accepted by session {out['host_accept']['session_id']}"
    if "fallback" in out:
        line += f"; session {out['fallback']['session_id']} refused it, so it went to its principal"
    return line


def simple(action: str, flags: dict[str, Any]) -> int:
    arguments = _arguments(action, flags)
    if isinstance(arguments, str):
        return usage(arguments)
    return report(_call(arguments), as_json=bool(flags.get("json_")), text=_text)


def _text(out: Mapping[str, Any]) -> str:
    action = out["action"]
    if action == "fetch":
        payload = out["payload"]
        return payload if isinstance(payload, str) else json.dumps(payload, ensure_ascii=False, indent=2)
    if action == "discover":
        cards = out["registrations"]
        if not cards:
            return "No live sessions registered in this project."
        return "\n".join(
            f"{c['session_id']}  principal {c['principal_id']}  {c['host_kind']}  generation {c['generation']}"
            + (f"  — {c['work_summary']}" if c["work_summary"] else "")
            for c in cards
        )
    if action == "receipts":
        facts = out["receipts"]
        if not facts:
            return "No receipts yet."
        return "\n".join(
            f"{f['created_at']}  {f['kind']}{' ' + f['state'] if f['state'] else ''}  ({f['fact_source']})"
            for f in facts
        )
    receipt = out["receipt"]
    state = f" {receipt['state']}" if receipt["state"] else ""
    again = "" if out["created"] else " (already recorded with this key)"
    return f"recorded {action}{state} for {out['message_id']}{again}"


def watch(flags: dict[str, Any]) -> int:
    """`ready`, then one `events` or `timeout` JSONL record; the caller keeps next_cursor and owns the retry loop."""
    arguments = _arguments("poll", {**flags, "json_": True})
    if isinstance(arguments, str):
        return usage(arguments)
    # wait_ms stays in the arguments, so the gate checks its bounds as it does over MCP and HTTP.
    wait = int(arguments.get("wait_ms", 0))
    print(dumps({"type": "ready"}), flush=True)
    from memesh.app.dispatch import guarded
    from memesh.app.waiting import call_waiting_sync

    resources = cli_resources()
    try:
        # The database first (a failure to open it is the failure body, as for every command), then the wait.
        polled = guarded(lambda: Success(resources.message_high_water())).bind(
            lambda _: call_waiting_sync(
                lambda: run_op(MESSAGE, arguments, resources=resources),
                wait,
                resources.message_high_water,
                resources.message_wakeups,
            )
        )
    finally:
        resources.close()
    match polled:
        case Failure(error):
            return fail(error, as_json=True)
        case Success(out):
            if out["events"]:
                print(dumps({"type": "events", "events": out["events"], "next_cursor": out["next_cursor"]}))
            else:
                print(dumps({"type": "timeout", "next_cursor": out["next_cursor"]}))
            return OK
    raise AssertionError("unreachable")  # pragma: no cover


def storage_report(cutoff: str, *, as_json: bool) -> int:
    from memesh.app.operations.messages import MESSAGE_STORAGE_REPORT

    return report(run_op(MESSAGE_STORAGE_REPORT, {"cutoff": cutoff}), as_json=as_json, text=_report_text)


def _report_text(out: Mapping[str, Any]) -> str:
    audit, sqlite = out["audit"], out["sqlite"]
    return "\n".join(
        [
            f"Message storage (cutoff {out['cutoff']})",
            f"  logical payload: {out['logical_payload']['bytes']} bytes in {out['logical_payload']['messages']} "
            "messages",
            f"  protected or unresolved: {out['protected_or_unresolved']} messages",
            f"  prunable (ACKed, terminal disposition before cutoff): {out['prunable_terminal']['messages']} "
            f"messages, {out['prunable_terminal']['bytes']} bytes",
            f"  payloads already pruned: {out['pruned_payloads']}",
            f"  audit rows: {audit['deliveries']} deliveries, {audit['events']} events, {audit['cursors']} cursors, "
            f"{audit['sessions']} sessions ({audit['presence_live']} present), {audit['dispatch']} dispatch, "
            f"{audit['acceptance']} acceptance",
            f"  reusable SQLite pages: {sqlite['reusable_pages']} ({sqlite['reusable_bytes']} bytes)",
            f"  files: main {sqlite['main_bytes']} bytes, WAL {sqlite['wal_bytes']} bytes",
        ]
    )


def storage_prune(cutoff: str, *, batch: int, apply: bool, as_json: bool) -> int:
    from memesh.app.operations.messages import MESSAGE_STORAGE_PRUNE

    arguments = {"cutoff": cutoff, "batch_size": batch, "apply": apply}
    return report(run_op(MESSAGE_STORAGE_PRUNE, arguments), as_json=as_json, text=_prune_text)


def _prune_text(out: Mapping[str, Any]) -> str:
    if out["dry_run"]:
        return (
            f"Dry run: {out['prunable']} payloads ({out['bytes']} bytes) could be pruned (cutoff {out['cutoff']}). "
            "Run again with --apply to prune them; audit rows are kept."
        )
    return f"Pruned {out['pruned']} payloads in {out['batches']} batches; audit rows kept."
