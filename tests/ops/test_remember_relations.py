"""remember's relations: supersedes archives, contradicts surfaces as a conflict, every other label is inert."""

from __future__ import annotations

from typing import TYPE_CHECKING

from memesh.store.sqlite import SqliteStore

if TYPE_CHECKING:
    from tests.conftest import Caller


def _fact(tools: Caller, name: str, text: str) -> None:
    tools.ok("remember", {"name": name, "type": "fact", "observations": [text]})


def test_relations_created_are_listed_and_counted(tools: Caller, fresh_db: SqliteStore) -> None:
    _fact(tools, "api-design", "REST over HTTP")
    out = tools.ok(
        "remember",
        {
            "name": "auth",
            "type": "decision",
            "observations": ["JWT"],
            "relations": [{"to": "api-design", "type": "related-to"}, {"to": "api-design", "type": "caused"}],
        },
    )
    assert out["relations"] == 2
    assert out["relationsCreated"] == [
        {"to": "api-design", "type": "related-to"},
        {"to": "api-design", "type": "caused"},
    ]
    assert "relationErrors" not in out
    entity = fresh_db.find("auth")
    assert entity is not None
    assert [(r.from_name, r.to_name, r.type) for r in entity.relations] == [
        ("auth", "api-design", "related-to"),
        ("auth", "api-design", "caused"),
    ]


def test_a_missing_target_is_reported_and_the_entity_is_still_stored(tools: Caller, fresh_db: SqliteStore) -> None:
    _fact(tools, "exists", "x")
    out = tools.ok(
        "remember",
        {
            "name": "m",
            "type": "fact",
            "observations": ["o"],
            "relations": [{"to": "nowhere", "type": "uses"}, {"to": "exists", "type": "uses"}],
        },
    )
    assert out["stored"] is True
    assert out["relationsCreated"] == [{"to": "exists", "type": "uses"}]
    assert out["relations"] == 1
    assert len(out["relationErrors"]) == 1
    assert "nowhere" in out["relationErrors"][0]
    entity = fresh_db.find("m")
    assert entity is not None
    assert entity.observations == ["o"]
    assert fresh_db.find("nowhere") is None


def test_supersedes_archives_the_target_on_write(tools: Caller, fresh_db: SqliteStore) -> None:
    _fact(tools, "old-design", "monolith deploys")
    out = tools.ok(
        "remember",
        {
            "name": "new-design",
            "type": "decision",
            "observations": ["service deploys"],
            "relations": [{"to": "old-design", "type": "supersedes"}],
        },
    )
    assert out["relationsCreated"] == [{"to": "old-design", "type": "supersedes"}]
    old = fresh_db.find("old-design")
    assert old is not None
    assert old.status == "archived"
    assert tools.ok("recall", {"query": "deploys"})["entities"][0]["name"] == "new-design"
    assert [e["name"] for e in tools.ok("recall", {"query": "monolith"})["entities"]] == []


def test_contradicts_surfaces_as_a_conflict_in_the_exact_format(tools: Caller) -> None:
    _fact(tools, "use-jwt", "tokens are stateless")
    tools.ok(
        "remember",
        {
            "name": "no-jwt",
            "type": "decision",
            "observations": ["tokens cannot be revoked"],
            "relations": [{"to": "use-jwt", "type": "contradicts"}],
        },
    )
    result = tools.ok("recall", {"query": "tokens"})
    assert sorted(e["name"] for e in result["entities"]) == ["no-jwt", "use-jwt"]
    assert result["conflicts"] == ['"no-jwt" contradicts "use-jwt"']
    # Either memory brings the conflict with it when both are returned.
    assert tools.ok("recall", {})["conflicts"] == ['"no-jwt" contradicts "use-jwt"']


def test_no_conflict_is_reported_when_only_one_side_is_returned(tools: Caller) -> None:
    _fact(tools, "use-jwt", "stateless tokens")
    tools.ok(
        "remember",
        {
            "name": "no-jwt",
            "type": "decision",
            "observations": ["revocation matters"],
            "relations": [{"to": "use-jwt", "type": "contradicts"}],
        },
    )
    result = tools.ok("recall", {"query": "revocation"})
    assert [e["name"] for e in result["entities"]] == ["no-jwt"]
    assert "conflicts" not in result


def test_a_free_form_relation_label_is_inert(tools: Caller, fresh_db: SqliteStore) -> None:
    _fact(tools, "target", "still here")
    tools.ok(
        "remember",
        {"name": "m", "type": "fact", "observations": ["o"], "relations": [{"to": "target", "type": "replaces"}]},
    )
    target = fresh_db.find("target")
    assert target is not None
    assert target.status == "active"
    result = tools.ok("recall", {})
    assert "conflicts" not in result
    assert sorted(e["name"] for e in result["entities"]) == ["m", "target"]


def test_the_same_relation_twice_is_stored_once(tools: Caller, fresh_db: SqliteStore) -> None:
    _fact(tools, "target", "t")
    relation = {"to": "target", "type": "uses"}
    tools.ok("remember", {"name": "m", "type": "fact", "observations": ["o"], "relations": [relation]})
    tools.ok("remember", {"name": "m", "type": "fact", "observations": ["o"], "relations": [relation]})
    entity = fresh_db.find("m")
    assert entity is not None
    assert len(entity.relations) == 1


def test_relations_are_returned_by_recall_as_outgoing_edges(tools: Caller) -> None:
    _fact(tools, "b", "beta")
    tools.ok(
        "remember", {"name": "a", "type": "fact", "observations": ["alpha"], "relations": [{"to": "b", "type": "x"}]}
    )
    found = tools.ok("recall", {"query": "alpha"})["entities"]
    assert found[0]["relations"] == [{"from": "a", "to": "b", "type": "x"}]
    target = tools.ok("recall", {"query": "beta"})["entities"]
    assert target[0]["relations"] == []


def test_only_the_relations_this_call_created_are_reported(tools: Caller) -> None:
    _fact(tools, "target", "t")
    relation = {"to": "target", "type": "uses"}
    first = tools.ok("remember", {"name": "m", "type": "fact", "observations": ["o"], "relations": [relation] * 2})
    assert (first["relations"], first["relationsCreated"]) == (1, [relation])
    again = tools.ok("remember", {"name": "m", "type": "fact", "observations": ["o"], "relations": [relation]})
    assert again["relations"] == 0
    assert "relationsCreated" not in again


def test_a_target_already_archived_is_not_reported_as_superseded_again(tools: Caller) -> None:
    _fact(tools, "old", "t")
    supersedes = {"to": "old", "type": "supersedes"}
    first = tools.ok("remember", {"name": "new", "type": "fact", "observations": ["n"], "relations": [supersedes]})
    assert first["superseded"] == ["old"]
    other = tools.ok("remember", {"name": "newer", "type": "fact", "observations": ["n"], "relations": [supersedes]})
    assert other["relationsCreated"] == [supersedes]
    assert "superseded" not in other
