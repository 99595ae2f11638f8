"""export, import, learn and task_state over MCP: listed like the others, answered with structuredContent that
the client validates against each tool's output schema."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from tests.transports.mcp.conftest import McpInMemory

pytestmark = pytest.mark.anyio


async def test_export_then_import_round_trips_over_mcp(mcp_server: McpInMemory, era: str) -> None:
    async with mcp_server.connect(era) as client:
        await client.ok("remember", {"name": "a", "type": "decision", "observations": ["x"], "tags": ["t"]})
        await client.ok(
            "remember",
            {"name": "b", "type": "note", "observations": ["y"], "relations": [{"to": "a", "type": "related-to"}]},
        )
        bundle = await client.ok("export", {})
        await client.ok("forget", {"name": "a"})
        result = await client.ok("import", {"data": bundle, "merge_strategy": "append", "restore_archived": True})
        again = await client.ok("export", {"limit": 10})
    assert bundle["entity_count"] == 2 and bundle["version"] == "3.1.0"
    assert result["kept_archived"] == 0 and result["errors"] == []
    assert all("status" not in entity for entity in again["entities"])


async def test_learn_and_task_state_over_mcp(mcp_server: McpInMemory, era: str) -> None:
    async with mcp_server.connect(era) as client:
        lesson = await client.ok(
            "learn", {"error": "ImportError: no module yaml", "fix": "pip install pyyaml", "project": "svc"}
        )
        written = await client.ok("task_state", {"project": "svc", "goal": "Ship", "next": "Tag the release"})
        read = await client.ok("task_state", {"project": "svc"})
    assert lesson["name"].startswith("lesson-svc-importerror-no-module-yaml-")
    assert written["changed"] == ["goal", "next"]
    assert read == {"project": "svc", "state": written["state"]}


async def test_import_naming_a_memory_twice_is_a_tool_error(mcp_server: McpInMemory, era: str) -> None:
    bundle = {"entities": [{"name": "a", "type": "t"}, {"name": "a", "type": "t"}]}
    async with mcp_server.connect(era) as client:
        message = await client.fails("import", {"data": bundle, "merge_strategy": "skip"})
    assert "more than once" in message
