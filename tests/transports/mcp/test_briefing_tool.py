"""The briefing tool over MCP: markdown text for the model, the whole output as structuredContent."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from tests.transports.mcp.conftest import text_of

if TYPE_CHECKING:
    from tests.transports.mcp.conftest import McpInMemory

pytestmark = pytest.mark.anyio


async def test_briefing_answers_with_the_fenced_block_as_text(mcp_server: McpInMemory, era: str) -> None:
    async with mcp_server.connect(era) as client:
        await client.ok(
            "remember", {"name": "use-wal", "type": "decision", "observations": ["WAL"], "tags": ["project:p-x"]}
        )
        result = await client.call("briefing", {"project": "p-x"})
    assert not result.is_error
    data = result.structured_content
    assert isinstance(data, dict) and data["project"] == "p-x" and data["entityCount"] == 1
    assert text_of(result) == data["text"]
    assert text_of(result).startswith("MeMesh reference memory.") and "use-wal — WAL [mem:" in text_of(result)


async def test_an_empty_minimal_briefing_says_so_in_words(mcp_server: McpInMemory, era: str) -> None:
    async with mcp_server.connect(era) as client:
        result = await client.call("briefing", {"project": "nothing-here"})
    assert result.structured_content is not None and result.structured_content["empty"] in (True, False)
    if result.structured_content["empty"]:
        assert text_of(result) == "Nothing to brief at level minimal — no project memories yet."


async def test_a_path_shaped_recipient_is_a_tool_error_naming_the_field(mcp_server: McpInMemory, era: str) -> None:
    async with mcp_server.connect(era) as client:
        message = await client.fails("briefing", {"recipient": "/root"})
    assert message.startswith("recipient:")
