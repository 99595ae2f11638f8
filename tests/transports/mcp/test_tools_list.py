"""tools/list serves every registry tool with its schema files (less what only MeMesh reads), over both eras."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

import memesh
from memesh.app.registry import TOOLS
from memesh.schema import files as schemas

if TYPE_CHECKING:
    from tests.transports.mcp.conftest import McpInMemory

pytestmark = [pytest.mark.anyio, pytest.mark.one_engine("tools/list: no store is read")]


async def test_every_registry_tool_is_listed_in_order_with_its_schema_files(mcp_server: McpInMemory, era: str) -> None:
    async with mcp_server.connect(era) as client:
        listed = await client.tools()
    assert [tool.name for tool in listed] == [tool.name for tool in TOOLS]
    for tool, served in zip(TOOLS, listed, strict=True):
        assert served.title == tool.title
        assert served.description == schemas.description(tool.input_schema)
        file_input = {k: v for k, v in schemas.load(tool.input_schema).items() if k not in ("description", "title")}
        assert served.input_schema == file_input
        assert served.output_schema == {k: v for k, v in schemas.load(tool.output_schema).items() if k != "title"}


async def test_a_tools_description_is_sent_once_not_again_inside_its_input_schema(
    mcp_server: McpInMemory, era: str
) -> None:
    async with mcp_server.connect(era) as client:
        listed = await client.tools()
    for served in listed:
        assert served.description
        assert "description" not in served.input_schema, served.name
        assert "title" not in served.input_schema, served.name  # the generated class's name, MeMesh's own
        assert served.input_schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"  # the dialect stays


async def test_every_tool_carries_its_registry_hints_as_annotations(mcp_server: McpInMemory, era: str) -> None:
    async with mcp_server.connect(era) as client:
        listed = {tool.name: tool for tool in await client.tools()}
    for tool in TOOLS:
        annotations = listed[tool.name].annotations
        assert annotations is not None
        assert annotations.read_only_hint is tool.read_only
        assert annotations.destructive_hint is tool.destructive
        assert annotations.idempotent_hint is tool.idempotent
        assert annotations.open_world_hint is False


async def test_the_server_names_itself_memesh_with_the_package_version(mcp_server: McpInMemory, era: str) -> None:
    async with mcp_server.connect(era) as client:
        await client.tools()
        info = client.server_info
    assert info is not None
    assert (info.name, info.version) == ("memesh", memesh.__version__)


async def test_no_served_input_schema_composes_schemas_at_its_top_level(mcp_server: McpInMemory, era: str) -> None:
    # Anthropic's API (and so Claude Code, which hands MCP tools to it) refuses a tool whose input schema has
    # oneOf/anyOf/allOf at the top level (and wants `type: object` there); one such tool breaks the whole server
    # for that client. A tool with per-action rules is a flat object (every field, `required: ["action"]`) with
    # the rules in `$defs/refine`, which memesh.schema.validation enforces alongside the top level.
    async with mcp_server.connect(era) as client:
        listed = await client.tools()
    for served in listed:
        composed = {"oneOf", "anyOf", "allOf", "not", "if", "then", "else"} & set(served.input_schema)
        assert not composed, (served.name, composed)
        assert served.input_schema["type"] == "object", served.name
