"""user_patterns over MCP: markdown text for the agent, the JSON as structuredContent; and the update notice rides
as a second content item on the first successful call only."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from mcp import types

from memesh.adapters.update_check import StaleProcessCheck, UpdateNotifier
from memesh.context import CallContext
from memesh.transports.mcp.backend import Backend

if TYPE_CHECKING:
    from tests.transports.mcp.conftest import McpInMemory


@pytest.mark.anyio
async def test_user_patterns_answers_markdown_with_the_json_alongside(mcp_server: McpInMemory, era: str) -> None:
    async with mcp_server.connect(era) as client:
        await client.ok("remember", {"name": "a", "type": "decision", "observations": ["x"]})
        result = await client.call("user_patterns", {"categories": ["workflow", "focusAreas"]})
    assert not result.is_error
    [block] = result.content
    assert isinstance(block, types.TextContent)
    assert block.text.startswith("# User work patterns\n")
    assert "## Focus areas\n- decision: 1" in block.text
    assert set(result.structured_content or {}) == {"workflow", "focusAreas"}


@pytest.mark.anyio
@pytest.mark.one_engine("refused by the gate before any store is read")
async def test_an_unknown_category_is_a_tool_error_naming_it(mcp_server: McpInMemory, era: str) -> None:
    async with mcp_server.connect(era) as client:
        message = await client.fails("user_patterns", {"categories": ["moods"]})
    assert message.startswith("categories.0: ")


def test_the_update_notice_is_a_second_content_item_once(tmp_path: Path) -> None:
    notifier = UpdateNotifier(lambda: "[memesh update] memesh 9.9.9 is available; this is 0.1.0.")
    backend = Backend(tmp_path / "kg.db", notifier=notifier)
    backend.open()
    assert notifier.wait(5)
    ctx = CallContext(source_host="test", agent_view=True)
    try:
        refused = backend.call("recall", {"limit": 0}, ctx)
        first = backend.call("recall", {}, ctx)
        second = backend.call("recall", {}, ctx)
    finally:
        backend.close()
    assert refused.is_error and len(refused.content) == 1  # a failed call never carries it
    assert [getattr(block, "text", "") for block in first.content][1].startswith("[memesh update] memesh 9.9.9")
    assert len(second.content) == 1


def test_a_newer_version_on_disk_is_noticed_once_on_a_later_call(tmp_path: Path) -> None:
    installed = ["0.1.0"]
    ticks = iter(range(0, 10_000, 100))
    stale = StaleProcessCheck("0.1.0", lambda: installed[0], every=60, clock=lambda: float(next(ticks)))
    backend = Backend(tmp_path / "kg.db", stale=stale)
    backend.open()
    ctx = CallContext(source_host="test", agent_view=True)
    try:
        before = backend.call("recall", {}, ctx)
        installed[0] = "0.2.0"
        after = backend.call("recall", {}, ctx)
        again = backend.call("recall", {}, ctx)
    finally:
        backend.close()
    assert len(before.content) == 1
    assert getattr(after.content[1], "text", "").startswith("[memesh update] This session started on v0.1.0 but v0.2.0")
    assert len(again.content) == 1
