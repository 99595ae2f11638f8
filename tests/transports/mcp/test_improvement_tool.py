"""The improvement tool over MCP: staging is idempotent on the reference's list (project, sources, problem, change,
verification scenario, success criteria, priority), which has no title."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from tests.transports.mcp.conftest import McpInMemory

pytestmark = pytest.mark.anyio


def _propose(**overrides: Any) -> dict[str, Any]:
    return {
        "action": "propose",
        "project": "p-x",
        "source_names": ["lesson-a"],
        "title": "Add claims and leases to shared work",
        "problem": "Two agents picked the same task twice last week.",
        "proposed_change": "Give shared work a claim with a lease.",
        "verification_scenario": "Two agents start the same task; only one gets the claim.",
        "success_criteria": ["No duplicated task in a week of use"],
        **overrides,
    }


async def test_a_retry_under_a_new_title_returns_the_staged_proposal(mcp_server: McpInMemory, era: str) -> None:
    async with mcp_server.connect(era) as client:
        await client.ok("remember", {"name": "lesson-a", "type": "lesson_learned", "observations": ["seen twice"]})
        first = await client.ok("improvement", _propose())
        retitled = await client.ok("improvement", _propose(title="Claims with leases for shared tasks"))
        reprioritised = await client.ok("improvement", _propose(priority="p0"))
    assert first["created"] is True
    assert (retitled["proposal_id"], retitled["created"]) == (first["proposal_id"], False)
    assert retitled["title"] == "Add claims and leases to shared work"
    assert reprioritised["proposal_id"] != first["proposal_id"] and reprioritised["created"] is True
