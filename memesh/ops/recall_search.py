"""The searches of recall modes `broad` and `hybrid`: the candidates and the scores recall ranks them by.

Imported by recall only in those modes, so the default `fts` path loads none of it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import field
from typing import TYPE_CHECKING, Protocol

from memesh.core import recall_modes as modes
from memesh.core.query import MatchPlan
from memesh.model import Filters
from memesh.records import dataclass

if TYPE_CHECKING:
    from datetime import date

    Window = tuple[date, date]


class ModeStore(Protocol):
    def search(self, plan: MatchPlan, filters: Filters, limit: int) -> list[tuple[int, float]]: ...
    def recent(self, filters: Filters, limit: int) -> list[int]: ...
    def vectors(self, ids: Sequence[int], model: str) -> dict[int, bytes]: ...
    def observation_texts(self, ids: Sequence[int]) -> dict[int, list[str]]: ...
    def memory_dates(self, ids: Sequence[int]) -> dict[int, str]: ...


class SemanticSignal(Protocol):
    """How similar a query is to stored memories by meaning (memesh.adapters.embedding)."""

    @property
    def model(self) -> str: ...

    def similarities(self, query: str, blobs: Mapping[int, bytes]) -> dict[int, float]: ...


@dataclass(frozen=True)
class Found:
    """What a search found: (id, score) best first (the score recall turns into relevance) and, in hybrid, which
    signal found each memory."""

    matches: list[tuple[int, float]]
    sources: dict[int, modes.Source] = field(default_factory=dict)


def broad_matches(store: ModeStore, plan: modes.BroadPlan, filters: Filters, limit: int) -> list[tuple[int, float]]:
    """The content words' matches, filled up to `limit` from the matches of the words the noise guard dropped."""
    first = store.search(plan.first, filters, limit)
    if plan.fill is None or len(first) >= limit:
        return first
    return modes.fill_matches(first, store.search(plan.fill, filters, limit), limit)


def passage_scores(store: ModeStore, plan: modes.BroadPlan, ids: Sequence[int]) -> dict[int, float]:
    """How much of the query the best passage of each of these memories holds (memesh.core.recall_modes)."""
    texts = store.observation_texts(ids)
    return modes.passage_scores({entity_id: texts.get(entity_id, []) for entity_id in ids}, plan.passage)


def dated(store: ModeStore, fused: list[modes.Fused], when: Window | None) -> list[modes.Fused]:
    """The fused candidates with the time bonus of a question that names a time (issue 38); as they are without."""
    if when is None or not fused:
        return fused
    return modes.time_bonus(fused, store.memory_dates([item.id for item in fused]), when)


def broad(store: ModeStore, plan: modes.BroadPlan, filters: Filters, limit: int, when: Window | None = None) -> Found:
    """Broad's best keyword candidates (a bounded number) re-ranked with their best passage (and, when the question
    names a time, the bonus of those dated in it)."""
    keyword = broad_matches(store, plan, filters, max(limit, modes.RERANK_CANDIDATES))
    passage = passage_scores(store, plan, [entity_id for entity_id, _ in keyword])
    fused = modes.fuse(keyword, {}, passage, semantic_weight=0.0, passage_weight=modes.BROAD_PASSAGE_WEIGHT)
    return Found([(item.id, item.score) for item in dated(store, fused, when)[:limit]])


def hybrid(
    store: ModeStore,
    semantic: SemanticSignal,
    query: str,
    plan: modes.BroadPlan,
    *,
    filters: Filters,
    limit: int,
    when: Window | None = None,
) -> Found:
    """Broad's best keyword candidates (a bounded number) fused with their best passage and their semantic
    similarity to the query.

    When the keywords find fewer than `limit` memories, the newest memories that pass the filters (a bounded pool)
    are scored by meaning too, so a query whose words occur nowhere can still find what it means.
    """
    depth = max(limit, modes.RERANK_CANDIDATES)
    keyword = broad_matches(store, plan, filters, depth)
    pool = [entity_id for entity_id, _ in keyword]
    if len(keyword) < limit:
        known = set(pool)
        pool += [entity_id for entity_id in store.recent(filters, modes.SEMANTIC_POOL) if entity_id not in known]
    similar = semantic.similarities(query, store.vectors(pool, semantic.model))
    passage = passage_scores(store, plan, [entity_id for entity_id, _ in keyword])
    fused = modes.fuse(keyword, similar, passage, passage_weight=modes.HYBRID_PASSAGE_WEIGHT)
    fused = dated(store, fused, when)[:limit]
    return Found([(item.id, item.score) for item in fused], {item.id: item.source for item in fused})
