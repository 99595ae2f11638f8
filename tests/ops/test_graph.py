"""The graph view's answer: bounded, the most connected first or one memory's neighbourhood nearest first, with
supersedes kept visible and the relations among the memories shown (both engines)."""

from __future__ import annotations

from typing import Any

from memesh.app.operations.memory import GRAPH
from memesh.context import CallContext
from memesh.errors import ErrorCode
from memesh.store.sqlite import SqliteStore
from tests.calls import run
from tests.conftest import Caller


def graph(store: SqliteStore, ctx: CallContext, **query: Any) -> Any:
    return run(GRAPH, store, query, ctx).unwrap()


def remember(tools: Caller, name: str, *links: tuple[str, str], **fields: Any) -> None:
    relations = [{"to": to, "type": kind} for kind, to in links]
    tools.ok("remember", {"name": name, "type": "decision", "observations": [f"about {name}"], "relations": relations,
                          **fields})  # fmt: skip


def chain(tools: Caller, names: list[str]) -> None:
    """a → b → c …: each memory related to the next."""
    for name, after in zip(reversed(names[:-1]), reversed(names[1:]), strict=True):
        if after == names[-1]:
            remember(tools, after)
        remember(tools, name, ("related-to", after))


def test_without_a_center_the_most_connected_come_first_and_the_limit_holds(
    fresh_db: SqliteStore, ctx: CallContext, tools: Caller
) -> None:
    for leaf in ("l1", "l2", "l3"):
        remember(tools, leaf)
    remember(tools, "hub", ("related-to", "l1"), ("related-to", "l2"), ("related-to", "l3"))
    remember(tools, "loner")
    answer = graph(fresh_db, ctx, limit=2)
    assert [node["name"] for node in answer["nodes"]] == ["hub", "l3"]  # degree 3, then the newest of degree 1
    assert answer["nodes"][0]["degree"] == 3
    assert answer["edges"] == [{"from": "hub", "to": "l3", "type": "related-to"}]
    assert answer["truncated"] is True
    assert answer["total"] == {"memories": 5, "relations": 3}
    assert answer["center"] is None
    everything = graph(fresh_db, ctx)
    assert len(everything["nodes"]) == 5 and everything["truncated"] is False
    assert {node["name"] for node in everything["nodes"] if node["degree"] == 0} == {"loner"}


def test_a_center_gives_its_neighbourhood_within_depth_nearest_first(
    fresh_db: SqliteStore, ctx: CallContext, tools: Caller
) -> None:
    chain(tools, ["a", "b", "c", "d"])
    answer = graph(fresh_db, ctx, center="b", depth=1)
    # within a hop the most connected first: c (to b and d) before a (to b only)
    assert [(node["name"], node["hops"]) for node in answer["nodes"]] == [("b", 0), ("c", 1), ("a", 1)]
    assert answer["center"] == "b"
    assert sorted((e["from"], e["to"]) for e in answer["edges"]) == [("a", "b"), ("b", "c")]
    two = graph(fresh_db, ctx, center="a", depth=2)
    assert [(node["name"], node["hops"]) for node in two["nodes"]] == [("a", 0), ("b", 1), ("c", 2)]
    capped = graph(fresh_db, ctx, center="b", depth=3, limit=2)
    assert len(capped["nodes"]) == 2 and capped["truncated"] is True


def test_a_superseded_memory_stays_in_the_picture_archived_and_a_contradiction_is_an_edge(
    fresh_db: SqliteStore, ctx: CallContext, tools: Caller
) -> None:
    remember(tools, "old-way")
    remember(tools, "new-way", ("supersedes", "old-way"))
    remember(tools, "other-view", ("contradicts", "new-way"))
    remember(tools, "forgotten")
    tools.ok("forget", {"name": "forgotten"})
    answer = graph(fresh_db, ctx)
    nodes = {node["name"]: node for node in answer["nodes"]}
    assert set(nodes) == {"old-way", "new-way", "other-view"}  # an archived memory only where it is superseded
    assert nodes["old-way"]["archived"] is True and nodes["new-way"]["archived"] is False
    assert {(e["from"], e["type"], e["to"]) for e in answer["edges"]} == {
        ("new-way", "supersedes", "old-way"),
        ("other-view", "contradicts", "new-way"),
    }
    around = graph(fresh_db, ctx, center="new-way", depth=1)
    assert {node["name"] for node in around["nodes"]} == {"new-way", "old-way", "other-view"}
    assert "forgotten" in {node["name"] for node in graph(fresh_db, ctx, include_archived=True)["nodes"]}


def test_a_memory_without_a_title_carries_the_start_of_its_first_observation(
    fresh_db: SqliteStore, ctx: CallContext, tools: Caller
) -> None:
    tools.ok("remember", {"name": "session-0f3a9c2e-summary", "type": "session-insight",
                          "observations": ["Session in web: " + "x" * 400, "second"]})  # fmt: skip
    tools.ok("remember", {"name": "titled", "type": "fact", "title": "A title", "observations": ["body"]})
    nodes = {node["name"]: node for node in graph(fresh_db, ctx)["nodes"]}
    assert nodes["session-0f3a9c2e-summary"]["title"] is None
    assert nodes["session-0f3a9c2e-summary"]["snippet"] == ("Session in web: " + "x" * 400)[:200]
    assert nodes["titled"]["snippet"] is None


def test_an_unknown_center_is_not_found(fresh_db: SqliteStore, ctx: CallContext) -> None:
    error = run(GRAPH, fresh_db, {"center": "nothing-here"}, ctx).failure()
    assert error.code is ErrorCode.NOT_FOUND
