"""The learn tool over MCP: a lesson holds what the caller stated, once, however often it is stated."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from tests.transports.mcp.conftest import McpClient, McpInMemory

pytestmark = pytest.mark.anyio

PROJECT = "shop~" + "2" * 32


async def _observations(client: McpClient, name: str) -> list[Any]:
    [entity] = [e for e in (await client.ok("export", {}))["entities"] if e["name"] == name]
    observations: list[Any] = entity["observations"]
    return observations


async def test_a_lesson_without_root_cause_or_prevention_stores_only_error_and_fix(
    mcp_server: McpInMemory, era: str
) -> None:
    async with mcp_server.connect(era) as client:
        out = await client.ok("learn", {"error": "Build fails on CI", "fix": "Pin node 20", "project": PROJECT})
        observations = await _observations(client, out["name"])
    assert observations == ["Error: Build fails on CI", "Fix: Pin node 20"]


async def test_a_blank_root_cause_is_not_stored_as_a_line(mcp_server: McpInMemory, era: str) -> None:
    async with mcp_server.connect(era) as client:
        out = await client.ok(
            "learn",
            {
                "error": "Flaky test",
                "fix": "Await the promise",
                "root_cause": "  ",
                "prevention": "Lint",
                "project": PROJECT,
            },
        )
        observations = await _observations(client, out["name"])
    assert observations == ["Error: Flaky test", "Fix: Await the promise", "Prevention: Lint"]


async def test_the_same_lesson_stated_twice_is_stored_once(mcp_server: McpInMemory, era: str) -> None:
    lesson = {"error": "Tests hang", "fix": "Close the pool", "root_cause": "Open handles", "project": PROJECT}
    async with mcp_server.connect(era) as client:
        first = await client.ok("learn", lesson)
        second = await client.ok("learn", lesson)
        observations = await _observations(client, first["name"])
    assert second == first
    assert observations == ["Error: Tests hang", "Root cause: Open handles", "Fix: Close the pool"]
