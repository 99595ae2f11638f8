"""Two agents handing work over through the message tool: two MCP servers (each its own backend and connections,
as two memesh-mcp processes have) on one database file, each reached by an MCP client with its own name."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import anyio
import pytest

from memesh.app.waiting import WAITERS

if TYPE_CHECKING:
    from tests.transports.mcp.conftest import McpInMemory

pytestmark = pytest.mark.anyio
PROJECT = "demo~" + "1" * 32


async def test_one_client_hands_work_to_another_and_reads_the_receipts(mcp_server: McpInMemory, era: str) -> None:
    async with (
        mcp_server.connect(era, client_name="claude-code") as author,
        mcp_server.connect(era, client_name="codex") as reviewer,
    ):
        sent = await author.ok(
            "message",
            {
                "action": "send",
                "project": PROJECT,
                "sender": "author",
                "recipient": "reviewer",
                "idempotency_key": "handoff-1",
                "content_type": "application/json",
                "payload": {"kind": "handoff", "text": "review ready"},
            },
        )
        polled = await reviewer.ok("message", {"action": "poll", "project": PROJECT, "recipient": "reviewer"})
        [event] = polled["events"]
        assert event["message_id"] == sent["message_id"]
        assert event["sender_host"] == "claude-code"  # the author's client name, never an argument
        base = {"project": PROJECT, "recipient": "reviewer", "message_id": sent["message_id"]}
        fetched = await reviewer.ok("message", {"action": "fetch", **base})
        assert fetched["payload"] == {"kind": "handoff", "text": "review ready"}
        await reviewer.ok("message", {"action": "intake", **base, "idempotency_key": "i", "intake_state": "ingested"})
        await reviewer.ok("message", {"action": "ack", **base, "idempotency_key": "a"})
        done = await reviewer.ok(
            "message", {"action": "disposition", **base, "idempotency_key": "d", "disposition": "completed"}
        )
        assert done["receipt"]["source_host"] == "codex"
        facts = await author.ok("message", {"action": "receipts", **base})
    assert [fact["kind"] for fact in facts["receipts"]] == ["intake", "ack", "disposition"]


async def test_a_waiting_poll_wakes_when_the_other_server_sends(mcp_server: McpInMemory) -> None:
    async with (
        mcp_server.connect("2025-11-25", client_name="sender-agent") as author,
        mcp_server.connect("2025-11-25", client_name="waiting-agent") as reviewer,
    ):
        first = await reviewer.ok("message", {"action": "poll", "project": PROJECT, "recipient": "r"})
        woken: dict[str, object] = {}

        async def wait() -> None:
            woken.update(
                await reviewer.ok(
                    "message",
                    {
                        "action": "poll",
                        "project": PROJECT,
                        "recipient": "r",
                        "cursor": first["next_cursor"],
                        "wait_ms": 20_000,
                    },
                )
            )

        async with anyio.create_task_group() as group:
            group.start_soon(wait)
            await author.ok(
                "message",
                {
                    "action": "send",
                    "project": PROJECT,
                    "sender": "s",
                    "recipient": "r",
                    "idempotency_key": "k",
                    "payload": "x",
                },
            )
    assert woken["timed_out"] is False
    assert len(woken["events"]) == 1  # type: ignore[arg-type]


async def test_an_empty_waiting_poll_times_out_with_its_cursor(mcp_server: McpInMemory) -> None:
    async with mcp_server.connect("2026-07-28") as client:
        out = await client.ok("message", {"action": "poll", "project": PROJECT, "recipient": "r", "wait_ms": 50})
    assert out["timed_out"] is True and out["events"] == [] and out["next_cursor"].startswith("cur_")


async def test_delivery_failures_are_tool_errors_naming_their_code(mcp_server: McpInMemory) -> None:
    async with mcp_server.connect("2025-11-25") as client:
        text = await client.fails(
            "message",
            {
                "action": "send",
                "project": PROJECT,
                "sender": "s",
                "recipient": "sess-1",
                "idempotency_key": "k",
                "payload": "x",
                "target_kind": "session",
            },
        )
        missing = await client.fails(
            "message", {"action": "send", "project": PROJECT, "sender": "s", "recipient": "r", "idempotency_key": "k"}
        )
    assert text.startswith("router_unreachable: ")
    assert missing == "payload: Invalid input: expected value, received undefined"


async def test_tools_list_serves_a_flat_message_schema(mcp_server: McpInMemory) -> None:
    async with mcp_server.connect("2025-11-25") as client:
        [tool] = [tool for tool in await client.tools() if tool.name == "message"]
    # Anthropic's API refuses a tool whose input schema has oneOf/anyOf/allOf at the top level.
    assert not {"oneOf", "anyOf", "allOf", "if"} & set(tool.input_schema)
    assert tool.input_schema["type"] == "object"
    json.dumps(tool.input_schema)


async def test_a_waiting_poll_past_the_process_cap_is_answered_at_once(
    mcp_server: McpInMemory, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(WAITERS, "limit", 0)  # every slot taken (by polls over HTTP at /mcp or /v1, say)
    async with mcp_server.connect("2026-07-28") as client:
        with anyio.fail_after(10):  # far inside the 30 s it asks to wait
            out = await client.ok("message", {"action": "poll", "project": PROJECT, "recipient": "r", "wait_ms": 30000})
    assert (out["events"], out["timed_out"]) == ([], False)  # as the same poll with wait_ms 0
