"""A bounded picture of the graph for the dashboard: the most connected memories, or one memory's neighbourhood."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from returns.result import Failure, Result, Success

from memesh.context import CallContext
from memesh.core import graph
from memesh.core.graph import Link, NodeRow
from memesh.errors import MemeshError
from memesh.generated.http.graph_input import GraphInput
from memesh.generated.http.graph_output import Edge, GraphOutput, Node
from memesh.schema import facts

SNIPPET = 200  # characters of the first observation sent as a label for a memory without a title
LIMIT_DEFAULT: int = facts.default("http/graph.input", "limit")
DEPTH_DEFAULT: int = facts.default("http/graph.input", "depth")


class GraphStore(Protocol):
    def entity_id(self, name: str) -> int | None: ...
    def most_connected(self, limit: int, *, include_archived: bool) -> list[int]: ...
    def links(self, ids: Sequence[int], *, kind: str | None = ...) -> list[Link]: ...
    def links_among(self, ids: Sequence[int]) -> list[Link]: ...
    def node_rows(self, ids: Sequence[int]) -> list[NodeRow]: ...
    def first_observations(self, ids: Sequence[int]) -> dict[int, str]: ...
    def count(self) -> int: ...
    def relation_count(self) -> int: ...


def _neighbourhood(
    store: GraphStore, center: int, depth: int, limit: int, *, include_archived: bool
) -> tuple[dict[int, int], bool]:
    """Memory id → hops from `center`, nearest first and the most connected first within a hop; whether the
    limit cut some off."""
    hops = {center: 0}
    frontier = [center]
    for distance in range(1, depth + 1):
        reached = [
            i
            for i in graph.far_ends(frontier, store.links(frontier), include_archived=include_archived)
            if i not in hops
        ]
        if not reached:
            break
        ranked = sorted(store.node_rows(reached), key=lambda row: -row.degree)
        room = limit - len(hops)
        for row in ranked[:room]:
            hops[row.id] = distance
        if len(ranked) > room:
            return hops, True
        frontier = [row.id for row in ranked]
    return hops, False


def graph_view(store: GraphStore, request: GraphInput, /, *, ctx: CallContext) -> Result[GraphOutput, MemeshError]:
    """Nodes and the relations among them (see the input schema for how they are chosen); Failure(
    resource.not-found) when `center` names no memory."""
    limit = request.get("limit", LIMIT_DEFAULT)
    include_archived = request.get("include_archived", False)
    center_name = request.get("center")
    hops: dict[int, int] = {}
    if center_name is not None:
        center = store.entity_id(center_name)
        if center is None:
            return Failure(MemeshError.not_found(f'Entity "{center_name}" not found', name=center_name))
        hops, truncated = _neighbourhood(
            store, center, request.get("depth", DEPTH_DEFAULT), limit, include_archived=include_archived
        )
        ids = list(hops)
    else:
        ranked = store.most_connected(limit + 1, include_archived=include_archived)
        superseding = [] if include_archived else store.links(ranked, kind=graph.SUPERSEDES)
        ids, truncated = graph.with_superseded(ranked, superseding, limit, include_archived=include_archived)
    rows = store.node_rows(ids)
    snippets = store.first_observations([row.id for row in rows if not row.title])
    names = {row.id: row.name for row in rows}
    nodes: list[Node] = []
    for row in rows:
        node: Node = {
            "name": row.name,
            "title": row.title,
            "type": row.type,
            "archived": not row.active,
            "degree": row.degree,
            "snippet": snippets[row.id][:SNIPPET] if row.id in snippets else None,
        }
        if center_name is not None:
            node["hops"] = hops[row.id]
        nodes.append(node)
    edges: list[Edge] = [
        {"from": names[link.from_id], "to": names[link.to_id], "type": link.type}
        for link in store.links_among(list(names))
    ]
    return Success(
        {
            "nodes": nodes,
            "edges": edges,
            "center": names.get(next(iter(hops))) if hops else None,
            "total": {"memories": store.count(), "relations": store.relation_count()},
            "truncated": truncated,
        }
    )
