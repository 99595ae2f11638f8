"""stats: aggregate counts and distributions of the knowledge graph (GET /v1/stats)."""

from __future__ import annotations

from typing import Final, Protocol

from returns.result import Result, Success

from memesh.context import CallContext
from memesh.errors import MemeshError
from memesh.generated.http.stats_input import StatsInput
from memesh.generated.http.stats_output import StatsOutput

TAG_DISTRIBUTION_LIMIT: Final = 50


class StatsStore(Protocol):
    def totals(self) -> tuple[int, int, int, int]: ...
    def type_counts(self, *, active_only: bool = False) -> list[tuple[str, int]]: ...
    def tag_counts(self, limit: int) -> list[tuple[str, int]]: ...
    def status_counts(self) -> list[tuple[str, int]]: ...
    def namespace_counts(self) -> list[tuple[str, int]]: ...
    def project_tag_counts(self) -> list[tuple[str, int]]: ...


def stats(store: StatsStore, _request: StatsInput, /, *, ctx: CallContext) -> Result[StatsOutput, MemeshError]:
    """Row counts and the type, tag (top 50), status, namespace and project tag distributions;
    never fails on a readable database."""
    entities, observations, relations, tags = store.totals()
    return Success(
        {
            "totalEntities": entities,
            "totalObservations": observations,
            "totalRelations": relations,
            "totalTags": tags,
            "typeDistribution": [{"type": t, "count": n} for t, n in store.type_counts()],
            "tagDistribution": [{"tag": t, "count": n} for t, n in store.tag_counts(TAG_DISTRIBUTION_LIMIT)],
            "statusDistribution": [{"status": s, "count": n} for s, n in store.status_counts()],
            "namespaceDistribution": [{"namespace": s, "count": n} for s, n in store.namespace_counts()],
            "projectDistribution": [{"project": p, "count": n} for p, n in store.project_tag_counts()],
        }
    )
