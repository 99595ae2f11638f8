"""What a member reaches of the others' memories (issue 32, hardening), from outside: a real `memesh serve
--allow-remote` on both engines, each member behind its own token over /v1 and /mcp. A member never reads, stages
or counts another member's `personal` memory nor a project outside its scope; the owner's answers are unchanged."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

from memesh.context import Caller
from tests.transports.http.test_team_members import ALPHA, BETA, Team, ok, refused, remember, team
from tests.transports.mcp.conftest import ERAS
from tests.transports.mcp.test_http import connect

__all__ = ["team"]  # the fixture, shared with the team tests

DIGEST = {"action": "prepare", "project": ALPHA, "kind": "digest"}


def commit(client: httpx.Client, name: str, *, namespace: str, project: str = ALPHA) -> None:
    """A memory of a digest type (what a week's work package is made of), tagged with `project`."""
    body = {"name": name, "type": "commit", "observations": [f"fix: {name}"], "tags": [f"project:{project}"]}
    ok(client.post("/v1/remember", json={**body, "namespace": namespace}))


def source_names(prepared: dict[str, Any]) -> list[str]:
    assert prepared["status"] == "available", prepared
    return sorted(source["name"] for source in prepared["package"]["sources"])


@pytest.mark.anyio
async def test_work_package_stages_no_other_members_personal_memory_and_no_foreign_project(team: Team) -> None:
    bea, carl, dana = team.add("bea", "writer"), team.add("carl", "writer"), team.add("dana", "writer", ALPHA)
    with team.http(bea) as client:
        for i in range(5):
            commit(client, f"bea-private-{i}", namespace="personal")
    as_carl = {"Authorization": f"Bearer {carl}"}
    async with connect(team.server.url, ERAS[0], headers=as_carl) as mcp:
        assert (await mcp.ok("work_package", DIGEST))["status"] == "none_available"
        refusal = await mcp.call("work_package", {**DIGEST, "kind": "transcript"})  # this machine's transcripts
        assert refusal.is_error
    async with connect(team.server.url, ERAS[1], headers={"Authorization": f"Bearer {bea}"}) as mcp:
        assert source_names(await mcp.ok("work_package", DIGEST)) == [f"bea-private-{i}" for i in range(5)]
    with team.http(carl) as client:
        for i in range(5):
            commit(client, f"team-{i}", namespace="team")
    async with connect(team.server.url, ERAS[1], headers=as_carl) as mcp:
        prepared = await mcp.ok("work_package", DIGEST)
        assert source_names(prepared) == [f"team-{i}" for i in range(5)]
        staged = await mcp.ok(
            "work_package",
            {
                "action": "submit",
                "package_id": prepared["package"]["id"],
                "ref": prepared["package"]["ref"],
                "result": {
                    "name": "week-digest",
                    "type": "digest",
                    "observations": ["Five fixes."],
                    "tags": ["topic:week"],
                },
            },
        )
        assert staged["status"] == "staged"
    async with connect(team.server.url, ERAS[0], headers={"Authorization": f"Bearer {dana}"}) as mcp:
        assert (await mcp.call("work_package", {**DIGEST, "project": BETA})).is_error  # outside its scope
    [(sources,)] = team.rows("SELECT source_ids FROM dream_proposals")
    private = {row[0] for row in team.rows("SELECT id FROM entities WHERE name LIKE 'bea-private-%'")}
    assert private and not private.intersection(int(i) for i in sources.strip("[]").split(","))


def test_stats_health_projects_and_analytics_count_only_what_a_member_may_see(team: Team) -> None:
    bea, carl, dana = team.add("bea", "writer"), team.add("carl", "reader"), team.add("dana", "reader", ALPHA)
    with team.http(team.server.token()) as owner:
        ok(remember(owner, "alpha-choice", f"project:{ALPHA}"))
        ok(remember(owner, "beta-choice", f"project:{BETA}"))
        whole = ok(owner.get("/v1/stats"))
    with team.http(bea) as client:
        ok(remember(client, "bea-diary", "project:gamma~" + "c" * 32, namespace="personal"))
        ok(remember(client, "bea-untagged-diary", namespace="personal"))
    with team.http(team.server.token()) as owner:
        assert ok(owner.get("/v1/stats"))["totalEntities"] == whole["totalEntities"] + 2  # the owner's: everything
        assert ok(owner.get("/v1/health"))["entity_count"] == 4
    with team.http(carl) as reader:
        stats = ok(reader.get("/v1/stats"))
        assert stats["totalEntities"] == 2
        assert stats["totalObservations"] == 2
        assert {row["namespace"] for row in stats["namespaceDistribution"]} == {"team"}
        assert {row["project"] for row in stats["projectDistribution"]} == {ALPHA, BETA}
        assert "project:gamma~" + "c" * 32 not in {row["tag"] for row in stats["tagDistribution"]}
        assert ok(reader.get("/v1/health"))["entity_count"] == 2
        listed = ok(reader.get("/v1/projects"))
        assert "bea-untagged-diary" not in str(listed) and "gamma" not in str(listed)
        analytics = ok(reader.get("/v1/analytics"))
        assert sum(day["created"] for day in analytics["timeline"]) == 2
        assert ok(reader.get("/v1/analytics/pm"))["connectedness"]["activeEntities"] == 2
    with team.http(dana) as scoped:
        assert ok(scoped.get("/v1/health"))["entity_count"] == 1
        refused(scoped.get("/v1/stats"), 403, "auth.forbidden")  # not scoped by project: refused, not leaked


@pytest.mark.anyio
async def test_a_members_briefing_index_and_product_work_leave_out_another_members_personal_memory(
    team: Team,
) -> None:
    bea, carl = team.add("bea", "writer"), team.add("carl", "writer")
    with team.http(bea) as client:
        body = {"type": "decision", "tags": [f"project:{ALPHA}"], "namespace": "personal"}
        for i in range(12):  # more than the briefing's slots: the rest reach only its index
            ok(client.post("/v1/remember", json={**body, "name": f"bea-hidden-{i}", "observations": ["secret plan"]}))
    async with connect(team.server.url, ERAS[0], headers={"Authorization": f"Bearer {carl}"}) as mcp:
        result = await mcp.call("briefing", {"project": ALPHA})
    assert result.structured_content is not None
    assert "bea-hidden" not in str(result.structured_content)
    assert "secret plan" not in str(result.structured_content)


def test_a_relation_to_a_memory_a_member_may_not_see_is_left_out_of_what_it_reads(team: Team) -> None:
    bea, carl, dana = team.add("bea", "writer"), team.add("carl", "reader"), team.add("dana", "reader", ALPHA)
    with team.http(bea) as client:
        ok(remember(client, "bea-diary", f"project:{ALPHA}", namespace="personal"))
        ok(remember(client, "beta-plan", f"project:{BETA}"))
        body = {"name": "team-plan", "type": "decision", "observations": ["the plan"], "tags": [f"project:{ALPHA}"]}
        related = [{"to": "bea-diary", "type": "related-to"}, {"to": "beta-plan", "type": "related-to"}]
        ok(client.post("/v1/remember", json={**body, "namespace": "team", "relations": related}))
        [mine] = ok(client.post("/v1/recall", json={"query": "plan"}))["entities"][:1] or [None]
    assert mine is not None
    for token, shown in ((carl, {"beta-plan"}), (dana, set())):
        with team.http(token) as client:
            [recalled] = [e for e in ok(client.post("/v1/recall", json={"query": "plan"}))["entities"]
                          if e["name"] == "team-plan"]  # fmt: skip
            assert {r["to"] for r in recalled["relations"]} == shown
            assert {r["to"] for r in ok(client.get("/v1/entities/team-plan"))["relations"]} == shown
            [listed] = [e for e in ok(client.get("/v1/entities")) if e["name"] == "team-plan"]
            assert {r["to"] for r in listed["relations"]} == shown
            [exported] = [e for e in ok(client.post("/v1/export", json={}))["entities"] if e["name"] == "team-plan"]
            assert {r["to"] for r in exported["relations"]} == shown
    with team.http(bea) as client:  # its author still reads both
        assert {r["to"] for r in ok(client.get("/v1/entities/team-plan"))["relations"]} == {"bea-diary", "beta-plan"}


@pytest.mark.anyio
async def test_a_task_state_and_a_hand_off_that_are_personal_stay_their_authors(team: Team) -> None:
    bea, carl = team.add("bea", "writer"), team.add("carl", "writer")
    async with connect(team.server.url, ERAS[0], headers={"Authorization": f"Bearer {bea}"}) as mcp:
        await mcp.ok("task_state", {"project": ALPHA, "goal": "bea's hidden goal"})
    with team.http(team.server.token()) as owner:  # as the owner's SessionEnd hook leaves it: personal, trusted
        body = {"name": f"session-handoff:{ALPHA}", "type": "session-handoff", "namespace": "personal"}
        hand_off = {**body, "observations": ["owner's private hand-off " * 5], "tags": [f"project:{ALPHA}"]}
        ok(owner.post("/v1/remember", json=hand_off))
    with team.http(carl) as client:
        assert ok(client.get("/v1/task-state", params={"project": ALPHA}))["state"] == {}
    async with connect(team.server.url, ERAS[1], headers={"Authorization": f"Bearer {carl}"}) as mcp:
        assert (await mcp.call("task_state", {"project": ALPHA, "goal": "carl's goal"})).is_error
        briefing = await mcp.call("briefing", {"project": ALPHA})
    assert briefing.structured_content is not None
    assert "hidden goal" not in str(briefing.structured_content)
    assert "private hand-off" not in str(briefing.structured_content)
    with team.http(bea) as client:
        assert ok(client.get("/v1/task-state", params={"project": ALPHA}))["state"]["goal"] == "bea's hidden goal"
    [(metadata,)] = team.rows(f"SELECT metadata FROM entities WHERE name = 'task-state:{ALPHA}'")
    assert "carl" not in metadata


# -- the sweep: every /v1 route and MCP tool a member reaches, from the route table -------------------------------

HIDDEN = ("beta-secret", "bea-personal", BETA)  # what neither a member scoped to ALPHA nor a reader may learn
BODIES: dict[str, dict[str, Any]] = {
    "recall": {"query": "secret personal"},
    "forget": {"name": "beta-secret"},
    "remember": {"name": "beta-secret", "type": "note", "observations": ["overwritten"], "tags": [f"project:{ALPHA}"]},
    "learn": {"error": "beta-secret failed", "fix": "x", "project": BETA},
    "message": {"action": "poll", "project": BETA, "recipient": "r"},
    "import": {"data": {"version": "3.1.0", "entities": []}, "merge_strategy": "skip"},
    "why": {"query": "secret"},
    "task_state": {"project": BETA},
    "work_package": {"action": "prepare", "project": BETA, "kind": "digest"},
    "improvement": {"action": "propose"},
    "briefing": {"project": BETA},
}
QUERIES: dict[str, dict[str, str]] = {"task_state_read": {"project": BETA}, "briefing_index": {"project": BETA}}


def _path(template: str) -> str:
    return template.replace("{name:path}", "beta-secret").replace("{id}", "1")


def _sweep_http(client: httpx.Client, caller: Caller, hidden_names: tuple[str, ...]) -> list[str]:
    """Every /v1 route as `caller` reaches it: a route its role or scope refuses answers 403 (or 400 for a body the
    door never read), and no answer names what it may not see. The routes it was admitted to."""
    from memesh.core import access
    from memesh.transports.http.routes import API

    admitted = []
    for route in API:
        for method in route.methods:
            name = route.op.name
            if method == "GET":
                answer = client.get(
                    _path(route.path),
                    params={**QUERIES.get(name, {}), **({"name": "beta-secret"} if route.path == "/v1/entity" else {})},
                )
            else:
                answer = client.post(_path(route.path), json=BODIES.get(name, {}))
            assert answer.status_code != 500, (route.path, answer.text)
            if access.admit(caller, name) is not None:
                assert answer.status_code in (400, 403), (route.path, answer.text)
                continue
            admitted.append(name)
            asked = str(answer.request.url) + answer.request.content.decode()
            for hidden in hidden_names:
                if hidden not in asked:  # a refusal may repeat the name it was asked for
                    assert hidden not in answer.text, (route.path, hidden, answer.text)
    return sorted(set(admitted))


@pytest.mark.anyio
async def test_every_route_and_tool_a_scoped_member_or_a_reader_reaches_names_nothing_outside_its_view(
    team: Team,
) -> None:
    bea, carl, dana = team.add("bea", "writer"), team.add("carl", "reader"), team.add("dana", "writer", ALPHA)
    with team.http(team.server.token()) as owner:
        ok(remember(owner, "beta-secret", f"project:{BETA}"))
        ok(remember(owner, "alpha-open", f"project:{ALPHA}"))
    with team.http(bea) as client:
        ok(remember(client, "bea-personal", f"project:{ALPHA}", namespace="personal"))
    scoped = Caller("dana", "writer", (ALPHA,))
    with team.http(dana) as client:
        assert _sweep_http(client, scoped, HIDDEN) == sorted(
            {"entities", "entity", "export", "health", "recall", "remember", "update_status"}
        )
    reader = Caller("carl", "reader")
    with team.http(carl) as client:
        reached = _sweep_http(client, reader, ("bea-personal",))
    assert "stats" in reached and "projects" in reached and "graph" not in reached
    from memesh.app.registry import TOOLS
    from memesh.core import access

    for token, caller in ((dana, scoped), (carl, reader)):
        async with connect(team.server.url, ERAS[0], headers={"Authorization": f"Bearer {token}"}) as mcp:
            for tool in TOOLS:
                result = await mcp.call(tool.name, BODIES.get(tool.name, {}))
                if access.admit(caller, tool.name) is not None:
                    assert result.is_error, tool.name
                shown = str(result.structured_content) + str(result.content)
                asked = json.dumps(BODIES.get(tool.name, {}))
                for hidden in HIDDEN if caller.projects else ("bea-personal",):
                    if hidden not in asked:
                        assert hidden not in shown, (tool.name, hidden, shown)
    assert team.rows("SELECT count(*) FROM observations o JOIN entities e ON e.id = o.entity_id "
                     "WHERE e.name = 'beta-secret'") == [(1,)]  # fmt: skip
