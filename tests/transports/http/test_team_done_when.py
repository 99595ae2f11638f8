"""Issue 32's "Done when" (all but OAuth), checked from outside over /mcp where the members' tests check /v1: on a
remote listener reached on 127.0.0.1, a reader's write over MCP is refused while its recall works, a member scoped
to one project neither writes to nor recalls another project's memories, and a revoked member is refused on the
very next call of a session it already has open. Both engines."""

from __future__ import annotations

import pytest

from tests.transports.http.test_team_members import ALPHA, BETA, Team, ok, remember, team
from tests.transports.mcp.conftest import ERAS
from tests.transports.mcp.test_http import connect

__all__ = ["team"]


@pytest.mark.anyio
async def test_a_revoked_member_is_refused_inside_a_session_it_already_has_open(team: Team) -> None:
    bea = team.add("bea", "writer")
    async with connect(team.server.url, ERAS[0], headers={"Authorization": f"Bearer {bea}"}) as mcp:
        await mcp.ok("remember", {"name": "before", "type": "note", "observations": ["x"], "namespace": "team"})
        assert team.memesh("member", "revoke", "bea").returncode == 0
        with pytest.raises(Exception):  # noqa: B017 - the SDK's error for a 401 answer, whichever it raises
            await mcp.call("remember", {"name": "after", "type": "note", "observations": ["y"]})
    assert team.rows("SELECT name, author FROM entities ORDER BY name") == [("before", "bea")]


@pytest.mark.anyio
async def test_over_mcp_a_reader_recalls_but_neither_writes_nor_forgets(team: Team) -> None:
    bea, carl = team.add("bea", "writer"), team.add("carl", "reader")
    with team.http(bea) as client:
        ok(remember(client, "shared-choice"))
    async with connect(team.server.url, ERAS[-1], headers={"Authorization": f"Bearer {carl}"}) as mcp:
        found = await mcp.ok("recall", {"query": "shared"})
        assert [entity["name"] for entity in found["entities"]] == ["shared-choice"]
        await mcp.fails("forget", {"name": "shared-choice"})
        await mcp.fails("remember", {"name": "carls", "type": "note", "observations": ["x"]})
        await mcp.fails("learn", {"error": "e", "fix": "f", "project": ALPHA})
    assert team.rows("SELECT name, status FROM entities") == [("shared-choice", "active")]


@pytest.mark.anyio
async def test_over_mcp_a_scoped_member_neither_writes_to_nor_recalls_another_project(team: Team) -> None:
    dana = team.add("dana", "writer", ALPHA)
    with team.http(team.server.token()) as owner:
        ok(remember(owner, "alpha-plan", f"project:{ALPHA}"))
        ok(remember(owner, "beta-plan", f"project:{BETA}"))
    async with connect(team.server.url, ERAS[0], headers={"Authorization": f"Bearer {dana}"}) as mcp:
        for query in ({"query": "plan"}, {"query": "plan", "cross_project": True}, {"tag": f"project:{BETA}"}):
            found = await mcp.ok("recall", query)
            assert [entity["name"] for entity in found["entities"]] in (["alpha-plan"], []), query
        exported = await mcp.ok("export", {})
        assert [entity["name"] for entity in exported["entities"]] == ["alpha-plan"]
        beta = {"name": "dana-beta", "type": "note", "observations": ["x"], "tags": [f"project:{BETA}"]}
        await mcp.fails("remember", beta)
        await mcp.fails("remember", {"name": "beta-plan", "type": "note", "observations": ["more"]})
        await mcp.ok("remember", {**beta, "name": "dana-alpha", "tags": [f"project:{ALPHA}"]})
    assert team.rows("SELECT name, author FROM entities WHERE name LIKE 'dana-%'") == [("dana-alpha", "dana")]
    assert team.rows("SELECT count(*) FROM observations o JOIN entities e ON e.id = o.entity_id "
                     "WHERE e.name = 'beta-plan'") == [(1,)]  # fmt: skip
