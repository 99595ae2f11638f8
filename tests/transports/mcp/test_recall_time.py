"""MCP recall with `since` / `until` and, in broad, the time a question names (issue 38), over a real client."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from tests.transports.mcp.conftest import McpClient, McpInMemory

OLD = [
    {"name": f"auth-{year}", "type": "note", "observations": [f"auth: {what}"], "created_at": f"{year}-03-03 10:00:00"}
    for year, what in ((2020, "sessions"), (2021, "tokens"))
]


async def seeded(client: McpClient) -> None:
    bundle = {"version": "3.1.0", "exported_at": "2026-01-01T00:00:00Z", "entities": OLD}
    await client.ok("import", {"data": bundle, "merge_strategy": "skip"})
    await client.ok("remember", {"name": "auth-now", "type": "note", "observations": ["auth: we chose passkeys"]})


def names(output: dict[str, Any]) -> list[str]:
    return [entity["name"] for entity in output["entities"]]


@pytest.mark.anyio
async def test_recall_keeps_what_was_created_between_since_and_until(mcp_server: McpInMemory, era: str) -> None:
    async with mcp_server.connect(era) as client:
        await seeded(client)
        assert names(await client.ok("recall", {"query": "auth", "since": "2021-01-01", "until": "2021-12-31"})) == [
            "auth-2021"
        ]
        assert names(await client.ok("recall", {"query": "auth", "since": "yesterday"})) == ["auth-now"]
        assert set(names(await client.ok("recall", {"until": "last year"}))) == {"auth-2020", "auth-2021"}


@pytest.mark.anyio
async def test_a_bad_since_is_a_tool_error_naming_the_field(mcp_server: McpInMemory, era: str) -> None:
    async with mcp_server.connect(era) as client:
        message = await client.fails("recall", {"query": "auth", "since": "whenever"})
        assert "since: not a date or time" in message


@pytest.mark.anyio
async def test_broad_says_the_time_the_question_named_in_the_answer(
    mcp_server: McpInMemory, era: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MEMESH_RECALL_MODE", "broad")
    async with mcp_server.connect(era) as client:
        await seeded(client)
        output = await client.ok("recall", {"query": "which auth did we choose on 3 March 2021?"})
        assert output["retrieval"]["time_window"] == {
            "expression": "3 March 2021",
            "since": "2021-03-03",
            "until": "2021-03-11",
        }
        assert names(output)[0] == "auth-2021"
