"""The briefing tool over MCP: the reference's response is the object, so content[0] is its JSON (like every tool
without a markdown report) and structuredContent carries the same object."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import pytest

from tests.transports.mcp.conftest import text_of

if TYPE_CHECKING:
    from tests.transports.mcp.conftest import McpInMemory

pytestmark = pytest.mark.anyio


async def test_briefing_answers_the_serialized_object_in_the_first_content_item(
    mcp_server: McpInMemory, era: str
) -> None:
    async with mcp_server.connect(era) as client:
        await client.ok(
            "remember", {"name": "use-wal", "type": "decision", "observations": ["WAL"], "tags": ["project:p-x"]}
        )
        result = await client.call("briefing", {"project": "p-x"})
    assert not result.is_error
    data = result.structured_content
    assert isinstance(data, dict) and data["project"] == "p-x" and data["entityCount"] == 1
    assert json.loads(text_of(result)) == data
    assert data["text"].startswith("MeMesh reference memory.") and "use-wal — WAL [mem:" in data["text"]


async def test_an_empty_minimal_briefing_is_the_object_with_empty_text(mcp_server: McpInMemory, era: str) -> None:
    async with mcp_server.connect(era) as client:
        result = await client.call("briefing", {"project": "nothing-here"})
    data = result.structured_content
    assert data is not None and json.loads(text_of(result)) == data
    assert data["empty"] is True and data["text"] == "" and data["level"] == "minimal"


async def test_a_path_shaped_recipient_is_a_tool_error_naming_the_field(mcp_server: McpInMemory, era: str) -> None:
    async with mcp_server.connect(era) as client:
        message = await client.fails("briefing", {"recipient": "/root"})
    assert message.startswith("recipient:")
