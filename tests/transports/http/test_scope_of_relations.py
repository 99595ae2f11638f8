"""A member's scope holds for what a write points at, not only for what it writes (issue 32): a relation's target
the member may not see (outside its projects, another member's `personal` memory) is not there for it, so no
`supersedes` archives it and no relation reaches it; forgetting, reviewing and proposing from such memories is
refused. Over /v1 and /mcp of a real `memesh serve --host 0.0.0.0 --allow-remote`, on both engines."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from tests.transports.http.test_team_members import ALPHA, BETA, Team, ok, refused, team
from tests.transports.mcp.conftest import ERAS
from tests.transports.mcp.test_http import connect

__all__ = ["team"]

PROPOSAL = {
    "action": "propose",
    "project": ALPHA,
    "source_names": ["bea-diary"],
    "title": "t",
    "problem": "p",
    "proposed_change": "c",
    "verification_scenario": "v",
    "success_criteria": ["s"],
}


def pointing(client: httpx.Client, name: str, target: str, kind: str, *tags: str, namespace: str = "team") -> Any:
    body = {"name": name, "type": "decision", "observations": [f"{name} replaces {target}"], "tags": list(tags)}
    return ok(
        client.post("/v1/remember", json={**body, "namespace": namespace, "relations": [{"to": target, "type": kind}]})
    )


def stored(client: httpx.Client, name: str, *tags: str, namespace: str = "team") -> None:
    body = {"name": name, "type": "note", "observations": [name], "tags": list(tags), "namespace": namespace}
    ok(client.post("/v1/remember", json=body))


def status_and_relations(team: Team, name: str) -> tuple[str, int]:
    [(status,)] = team.rows(f"SELECT status FROM entities WHERE name = '{name}'")
    [(count,)] = team.rows(
        f"SELECT count(*) FROM relations r JOIN entities t ON t.id = r.to_entity_id WHERE t.name = '{name}'"
    )
    return status, count


def test_a_scoped_member_cannot_supersede_or_relate_to_another_projects_memory(team: Team) -> None:
    dana = team.add("dana", "writer", ALPHA)
    with team.http(team.server.token()) as owner:
        stored(owner, "beta-choice", f"project:{BETA}")
        stored(owner, "untagged")
        stored(owner, "alpha-old", f"project:{ALPHA}")
    with team.http(dana) as scoped:
        for kind in ("supersedes", "related-to"):
            for target in ("beta-choice", "untagged"):
                answer = pointing(scoped, f"alpha-{kind}-{target}", target, kind, f"project:{ALPHA}")
                assert answer["relations"] == 0 and "superseded" not in answer
                assert answer["relationErrors"] == [f'Relation to "{target}" failed: Entity not found: {target}']
        refused(scoped.post("/v1/forget", json={"name": "beta-choice"}), 403, "auth.forbidden")
        # Within its project, supersedes works as it always did.
        assert pointing(scoped, "alpha-new", "alpha-old", "supersedes", f"project:{ALPHA}")["superseded"] == [
            "alpha-old"
        ]
    assert status_and_relations(team, "beta-choice") == ("active", 0)
    assert status_and_relations(team, "untagged") == ("active", 0)
    assert status_and_relations(team, "alpha-old") == ("archived", 1)


def test_a_writer_cannot_supersede_or_relate_to_another_members_personal_memory(team: Team) -> None:
    bea, carl = team.add("bea", "writer"), team.add("carl", "writer")
    with team.http(bea) as client:
        stored(client, "bea-diary", namespace="personal")
    with team.http(carl) as client:
        answer = pointing(client, "carl-plan", "bea-diary", "supersedes")
        assert answer["relations"] == 0 and "superseded" not in answer
        refused(client.post("/v1/forget", json={"name": "bea-diary"}), 404, "resource.not-found")
        refused(client.post("/v1/dream/proposals/1/accept", json={}), 403, "auth.forbidden")
        refused(client.post("/v1/dream/proposals/1/reject", json={}), 403, "auth.forbidden")
    with team.http(bea) as client:  # the author still relates to her own memory
        assert pointing(client, "bea-later", "bea-diary", "supersedes", namespace="personal")["superseded"] == [
            "bea-diary"
        ]
    assert status_and_relations(team, "bea-diary") == ("archived", 1)


@pytest.mark.anyio
async def test_the_same_holds_over_mcp(team: Team) -> None:
    bea, carl = team.add("bea", "writer"), team.add("carl", "writer")
    dana = team.add("dana", "writer", ALPHA)
    with team.http(bea) as client:
        stored(client, "bea-diary", namespace="personal")
        stored(client, "beta-choice", f"project:{BETA}")
    for era in ERAS:
        async with connect(team.server.url, era, headers={"Authorization": f"Bearer {carl}"}) as mcp:
            relation = [{"to": "bea-diary", "type": "supersedes"}]
            body = {"name": f"carl-{era}", "type": "note", "observations": ["x"], "relations": relation}
            done = await mcp.ok("remember", body)
            assert done["relations"] == 0 and "superseded" not in done
            await mcp.fails("improvement", PROPOSAL)
        async with connect(team.server.url, era, headers={"Authorization": f"Bearer {dana}"}) as mcp:
            relation = [{"to": "beta-choice", "type": "supersedes"}]
            body = {"name": f"dana-{era}", "type": "note", "observations": ["x"], "tags": [f"project:{ALPHA}"]}
            body["relations"] = relation
            done = await mcp.ok("remember", body)
            assert done["relations"] == 0 and "superseded" not in done
            await mcp.fails("forget", {"name": "beta-choice"})
    assert status_and_relations(team, "bea-diary") == ("active", 0)
    assert status_and_relations(team, "beta-choice") == ("active", 0)
    assert team.rows("SELECT count(*) FROM dream_proposals") == [(0,)]


def test_a_members_import_is_its_own_and_overwrites_no_one_elses_personal_memory(team: Team) -> None:
    bea, carl = team.add("bea", "writer"), team.add("carl", "writer")
    with team.http(bea) as client:
        stored(client, "bea-diary", namespace="personal")
    claimed = {"provenance": {"author": "bea"}}
    entries = [
        {"name": "bea-diary", "type": "note", "observations": ["carl was here"]},
        {"name": "signed-as-bea", "type": "note", "observations": ["x"], "metadata": claimed,
         "relations": [{"to": "bea-diary", "type": "supersedes"}]},
    ]  # fmt: skip
    with team.http(carl) as client:
        answer = ok(client.post("/v1/import", json={"data": {"entities": entries}, "merge_strategy": "overwrite"}))
        assert answer["imported"] == 1 and answer["errors"] == ["bea-diary: could not be stored (the name is taken)"]
        assert ok(client.get("/v1/entities/signed-as-bea"))["metadata"]["provenance"]["author"] == "carl"
    assert team.rows("SELECT o.content FROM observations o JOIN entities e ON e.id = o.entity_id "
                     "WHERE e.name = 'bea-diary'") == [("bea-diary",)]  # fmt: skip
    assert status_and_relations(team, "bea-diary") == ("active", 0)
