"""task_state, learn and briefing over MCP with a project's label: its one stored project, or an isError naming
the ids when several projects share it (issue 34)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from tests.transports.mcp.conftest import McpInMemory

pytestmark = pytest.mark.anyio
SHOP_A = "shop~" + "a" * 32
SHOP_B = "shop~" + "b" * 32


async def test_a_label_names_its_one_project_and_a_shared_one_is_refused(mcp_server: McpInMemory, era: str) -> None:
    async with mcp_server.connect(era) as client:
        await client.ok("task_state", {"project": SHOP_A, "goal": "Ship carts"})
        assert (await client.ok("task_state", {"project": "shop"}))["state"]["goal"] == "Ship carts"
        learned = await client.ok("learn", {"error": "cart lost", "fix": "persist it", "project": "shop"})
        found = await client.ok("recall", {"tag": f"project:{SHOP_A}"})
        assert learned["name"] in [entity["name"] for entity in found["entities"]]
        await client.ok("task_state", {"project": SHOP_B, "goal": "Ship refunds"})
        for tool, arguments in (
            ("task_state", {"project": "shop"}),
            ("learn", {"error": "x", "fix": "y", "project": "shop"}),
            ("briefing", {"project": "shop"}),
        ):
            message = await client.fails(tool, arguments)
            assert 'project: "shop" is the label of 2 projects' in message, tool
            assert SHOP_A in message and SHOP_B in message
