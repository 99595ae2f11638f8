"""stats: aggregate counts and distributions of the knowledge graph (GET /v1/stats)."""

from __future__ import annotations

from typing import Final, Protocol

from returns.result import Result, Success

from memesh.context import CallContext
from memesh.core import access
from memesh.errors import MemeshError
from memesh.generated.http.stats_input import StatsInput
from memesh.generated.http.stats_output import StatsOutput
from memesh.model import Filters

TAG_DISTRIBUTION_LIMIT: Final = 50


class StatsStore(Protocol):
    def totals(self, people: Filters | None = None) -> tuple[int, int, int, int]: ...
    def type_counts(self, *, active_only: bool = False, people: Filters | None = None) -> list[tuple[str, int]]: ...
    def tag_counts(self, limit: int, people: Filters | None = None) -> list[tuple[str, int]]: ...
    def status_counts(self, people: Filters | None = None) -> list[tuple[str, int]]: ...
    def namespace_counts(self, people: Filters | None = None) -> list[tuple[str, int]]: ...
    def project_tag_counts(self, people: Filters | None = None) -> list[tuple[str, int]]: ...


def stats(store: StatsStore, _request: StatsInput, /, *, ctx: CallContext) -> Result[StatsOutput, MemeshError]:
    """Row counts and the type, tag (top 50), status, namespace and project tag distributions — of the whole store,
    or for a member of what it may see (issue 32); never fails on a readable database."""
    people = access.counted(ctx.caller)
    entities, observations, relations, tags = store.totals(people)
    return Success(
        {
            "totalEntities": entities,
            "totalObservations": observations,
            "totalRelations": relations,
            "totalTags": tags,
            "typeDistribution": [{"type": t, "count": n} for t, n in store.type_counts(people=people)],
            "tagDistribution": [{"tag": t, "count": n} for t, n in store.tag_counts(TAG_DISTRIBUTION_LIMIT, people)],
            "statusDistribution": [{"status": s, "count": n} for s, n in store.status_counts(people)],
            "namespaceDistribution": [{"namespace": s, "count": n} for s, n in store.namespace_counts(people)],
            "projectDistribution": [{"project": p, "count": n} for p, n in store.project_tag_counts(people)],
        }
    )
