"""`memesh message …` as a user types it: stdin-only payloads, watch's JSONL, receipts, storage report and prune."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from tests.transports.cli.conftest import Cli

PROJECT = "demo~" + "5" * 32
SEND = ("message", "send", "--project", PROJECT, "--sender", "author", "--recipient", "reviewer")


def _send(cli: Cli, monkeypatch: pytest.MonkeyPatch, key: str, payload: str, *extra: str) -> dict[str, object]:
    monkeypatch.setattr("sys.stdin", io.StringIO(payload))
    out: dict[str, object] = cli.ok(*SEND, "--idempotency-key", key, "--payload-stdin", "--json", *extra).json()
    return out


def test_a_payload_on_the_command_line_is_refused(cli: Cli) -> None:
    outcome = cli(*SEND, "--idempotency-key", "k", "--payload", "secret")
    assert outcome.code == 2 and "stdin" in outcome.err


def test_handoff_from_send_to_receipts(cli: Cli, monkeypatch: pytest.MonkeyPatch) -> None:
    sent = _send(cli, monkeypatch, "h1", '{"kind":"handoff"}', "--content-type", "application/json")
    assert sent["sender_host"] == "cli"
    lines = cli.ok("message", "watch", "--project", PROJECT, "--recipient", "reviewer", "--wait-ms", "0").out
    ready, batch = (json.loads(line) for line in lines.splitlines())
    assert ready == {"type": "ready"} and batch["type"] == "events"
    message_id = batch["events"][0]["message_id"]
    base = ("--project", PROJECT, "--recipient", "reviewer", "--message-id", message_id)
    assert json.loads(cli.ok("message", "fetch", *base).out) == {"kind": "handoff"}
    cli.ok("message", "intake", *base, "--idempotency-key", "i", "--state", "ingested")
    cli.ok("message", "ack", *base, "--idempotency-key", "a")
    cli.ok("message", "disposition", *base, "--idempotency-key", "d", "--disposition", "completed")
    cli.ok("message", "activation", *base, "--idempotency-key", "w", "--activation", "unsupported")
    facts = cli.ok("message", "receipts", *base, "--json").json()["receipts"]
    assert [f["kind"] for f in facts] == ["intake", "ack", "disposition", "activation"]
    again = cli.ok(
        "message",
        "watch",
        "--project",
        PROJECT,
        "--recipient",
        "reviewer",
        "--cursor",
        batch["next_cursor"],
        "--wait-ms",
        "30",
    )
    assert json.loads(again.out.splitlines()[1]) == {"type": "timeout", "next_cursor": batch["next_cursor"]}


def test_the_recipient_comes_from_memesh_recipient(cli: Cli, monkeypatch: pytest.MonkeyPatch) -> None:
    _send(cli, monkeypatch, "r1", "hello")
    assert cli("message", "watch", "--project", PROJECT, "--wait-ms", "0").code == 2
    monkeypatch.setenv("MEMESH_RECIPIENT", "reviewer")
    lines = cli.ok("message", "watch", "--project", PROJECT, "--wait-ms", "0").out.splitlines()
    assert json.loads(lines[1])["type"] == "events"


def test_intake_reads_the_calling_session_from_the_environment(cli: Cli, monkeypatch: pytest.MonkeyPatch) -> None:
    sent = _send(cli, monkeypatch, "s1", "for one session", "--intended-session", "thread-9")
    base = ("--project", PROJECT, "--recipient", "reviewer", "--message-id", str(sent["message_id"]))
    refused = cli("message", "intake", *base, "--idempotency-key", "i", "--state", "fetched", "--json")
    assert refused.code == 1 and refused.json()["errorCode"] == "intended_for_other_session"
    monkeypatch.setenv("CODEX_THREAD_ID", "thread-9")
    cli.ok("message", "intake", *base, "--idempotency-key", "i", "--state", "fetched")


def test_storage_prune_is_a_dry_run_until_apply_and_keeps_the_audit(
    cli: Cli, monkeypatch: pytest.MonkeyPatch, memesh_env: Path
) -> None:
    sent = _send(cli, monkeypatch, "p1", "done work")
    _send(cli, monkeypatch, "p2", "open work")
    base = ("--project", PROJECT, "--recipient", "reviewer", "--message-id", str(sent["message_id"]))
    cli.ok("message", "ack", *base, "--idempotency-key", "a")
    cli.ok("message", "disposition", *base, "--idempotency-key", "d", "--disposition", "completed")
    report = cli.ok("message", "storage", "report", "--cutoff", "2999-01-01", "--json").json()
    assert report["prunable_terminal"]["messages"] == 1 and report["protected_or_unresolved"] == 1
    dry = cli.ok("message", "storage", "prune", "--cutoff", "2999-01-01", "--json").json()
    assert dry == {"cutoff": "2999-01-01T00:00:00.000Z", "dry_run": True, "prunable": 1, "bytes": 11}
    assert cli("message", "storage", "prune", "--cutoff", "2999-01-01", "--batch-size", "0").code == 1
    done = cli.ok("message", "storage", "prune", "--cutoff", "2999-01-01", "--apply", "--batch-size", "1", "--json")
    assert done.json()["pruned"] == 1
    fetched = cli.ok("message", "fetch", *base, "--json").json()
    assert fetched["payload"] is None and fetched["payload_pruned"] is True
    facts = cli.ok("message", "receipts", *base, "--json").json()["receipts"]
    assert [f["kind"] for f in facts] == ["ack", "disposition"]  # lifecycle facts kept
    after = cli.ok("message", "storage", "report", "--cutoff", "2999-01-01", "--json").json()
    assert after["pruned_payloads"] == 1 and after["audit"]["messages"] == 2


def test_an_early_cutoff_prunes_nothing(cli: Cli, monkeypatch: pytest.MonkeyPatch) -> None:
    sent = _send(cli, monkeypatch, "e1", "x")
    base = ("--project", PROJECT, "--recipient", "reviewer", "--message-id", str(sent["message_id"]))
    cli.ok("message", "ack", *base, "--idempotency-key", "a")
    cli.ok("message", "disposition", *base, "--idempotency-key", "d", "--disposition", "completed")
    dry = cli.ok("message", "storage", "prune", "--cutoff", "2000-01-01", "--json").json()
    assert dry["prunable"] == 0


def test_watch_refuses_a_wait_past_30_seconds_as_the_tool_does(cli: Cli) -> None:
    outcome = cli("message", "watch", "--project", PROJECT, "--recipient", "reviewer", "--wait-ms", "30001")
    assert outcome.code == 1
    assert json.loads(outcome.out.splitlines()[1])["error"].startswith("wait_ms: ")
