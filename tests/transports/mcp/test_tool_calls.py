"""tools/call: results as text and structuredContent, model-correctable failures as isError results."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

import pytest

from memesh.core.sizecap import ENTITY_MAX_BYTES, json_bytes

if TYPE_CHECKING:
    from tests.transports.mcp.conftest import McpInMemory

pytestmark = pytest.mark.anyio


async def test_a_remembered_memory_comes_back_from_recall(mcp_server: McpInMemory, era: str) -> None:
    async with mcp_server.connect(era) as client:
        stored = await client.ok(
            "remember",
            {"name": "auth-decision", "type": "decision", "observations": ["Use JWT"], "tags": ["project:x"]},
        )
        found = await client.ok("recall", {"query": "auth-decision"})
    assert stored["stored"] is True
    assert (stored["name"], stored["observations"], stored["tags"]) == ("auth-decision", 1, 1)
    [entity] = found["entities"]
    assert (entity["name"], entity["type"], entity["observations"], entity["tags"]) == (
        "auth-decision",
        "decision",
        ["Use JWT"],
        ["project:x"],
    )
    assert entity["id"] == stored["entityId"]


async def test_a_top_level_null_means_the_argument_was_not_given(mcp_server: McpInMemory, era: str) -> None:
    async with mcp_server.connect(era) as client:
        await client.ok("remember", {"name": "n", "type": "note", "title": None, "namespace": None})
        found = await client.ok("recall", {"query": None, "tag": None, "limit": None})
    assert [entity["name"] for entity in found["entities"]] == ["n"]


async def test_an_unknown_key_is_refused_with_its_name(mcp_server: McpInMemory, era: str) -> None:
    async with mcp_server.connect(era) as client:
        message = await client.fails("remember", {"name": "n", "type": "note", "colour": "red"})
    assert "colour" in message


async def test_a_field_of_the_wrong_type_is_refused_with_its_path(mcp_server: McpInMemory, era: str) -> None:
    async with mcp_server.connect(era) as client:
        message = await client.fails("remember", {"name": 5, "type": "note"})
        nested = await client.fails("remember", {"name": "n", "type": "note", "observations": ["ok", 7]})
    assert message.startswith("name:")
    assert nested.startswith("observations.1:")


async def test_forgetting_a_memory_that_does_not_exist_is_a_tool_error(mcp_server: McpInMemory, era: str) -> None:
    async with mcp_server.connect(era) as client:
        message = await client.fails("forget", {"name": "never-stored"})
    assert "never-stored" in message


async def test_an_unknown_tool_is_a_tool_error_naming_it(mcp_server: McpInMemory, era: str) -> None:
    async with mcp_server.connect(era) as client:
        message = await client.fails("consolidate", {})
    assert message == "Unknown tool: consolidate"


async def test_recall_caps_an_oversized_observation_and_says_so(mcp_server: McpInMemory, era: str) -> None:
    huge = "é" * 10_000  # 20 KB of UTF-8 in the longest observation the schema allows
    async with mcp_server.connect(era) as client:
        await client.ok("remember", {"name": "big", "type": "note", "observations": [huge]})
        found = await client.ok("recall", {"query": "big"})
    [entity] = found["entities"]
    [shown] = entity["observations"]
    marker = re.search(r" … \(\+(\d+) more bytes\)$", shown)
    assert marker is not None
    head = shown[: marker.start()]
    assert head == "é" * len(head)
    assert int(marker.group(1)) == len(huge.encode()) - len(head.encode())
    assert json_bytes(entity["observations"]) + json_bytes(entity["tags"]) <= ENTITY_MAX_BYTES
    assert entity["truncated"] == {"observations": {"shown": 1, "total": 1}}
    assert found["truncated"] is True


async def test_recall_never_shows_file_tags(mcp_server: McpInMemory, era: str) -> None:
    async with mcp_server.connect(era) as client:
        await client.ok(
            "remember", {"name": "edit", "type": "note", "observations": ["x"], "tags": ["file:src/a.py", "topic:y"]}
        )
        found = await client.ok("recall", {"query": "edit"})
    [entity] = found["entities"]
    assert entity["tags"] == ["topic:y"]
    assert "truncated" not in entity


def source_host(envelope: dict[str, Any], name: str) -> str:
    [entity] = [entity for entity in envelope["entities"] if entity["name"] == name]
    host: str = entity["metadata"]["provenance"]["source_host"]
    return host


async def test_the_client_name_is_stamped_as_source_host_on_first_insert_only(mcp_server: McpInMemory) -> None:
    async with mcp_server.connect("2025-11-25", client_name="claude-code") as client:
        await client.ok("remember", {"name": "shared", "type": "note", "observations": ["first"]})
    async with mcp_server.connect("2026-07-28", client_name="codex") as client:
        await client.ok("remember", {"name": "shared", "type": "note", "observations": ["second"]})
        await client.ok("remember", {"name": "own", "type": "note", "observations": ["third"]})
        found = await client.ok("recall", {})
    assert source_host(found, "shared") == "claude-code"
    assert source_host(found, "own") == "codex"


async def test_the_client_name_is_cleaned_before_it_is_stamped(mcp_server: McpInMemory, era: str) -> None:
    async with mcp_server.connect(era, client_name="  gemini-cli\x07\n") as client:
        await client.ok("remember", {"name": "g", "type": "note"})
        found = await client.ok("recall", {})
    assert source_host(found, "g") == "gemini-cli"
