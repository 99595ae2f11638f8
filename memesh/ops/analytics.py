"""analytics: the health score and the series the dashboard draws (GET /v1/analytics), and the project-management
figures (GET /v1/analytics/pm). The store counts; `memesh.core.analytics` decides what the counts mean."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final, Protocol, cast

from returns.result import Result, Success

from memesh.context import CallContext
from memesh.core import access
from memesh.core import analytics as rules
from memesh.errors import MemeshError
from memesh.generated.http.analytics_input import AnalyticsInput
from memesh.generated.http.analytics_output import AnalyticsOutput
from memesh.generated.http.analytics_pm_input import AnalyticsPmInput
from memesh.generated.http.analytics_pm_output import AnalyticsPmOutput
from memesh.model import Filters, iso_time, sqlite_time

PM_DEFAULT_WINDOW: Final = 30
STALE_PLAN_DAYS: Final = 30
OPEN_DECISION_DAYS: Final = 14
DECISION_TYPES: Final = ("decision", "architecture_decision", "design_decision")
RELEASE_TYPES: Final = ("release",)
PLAN_TYPES: Final = ("plan",)


# Every count takes `people`: a member's view (memesh.core.access.counted), None for the whole store.
class AnalyticsStore(Protocol):
    def health_counts(
        self,
        *,
        accessed_since: str,
        created_since: str,
        confidence_above: float,
        lesson_types: Sequence[str],
        people: Filters | None = None,
    ) -> tuple[int, int, int, int, int]: ...
    def lesson_severity(self, lesson_types: Sequence[str], people: Filters | None = None) -> tuple[int, int, int]: ...
    def citation_counts(self, people: Filters | None = None) -> tuple[int, int]: ...
    def created_per_day(self, since_day: str, people: Filters | None = None) -> dict[str, int]: ...
    def accessed_per_day(self, since_day: str, people: Filters | None = None) -> dict[str, int]: ...
    def accessed_since(self, since: str, people: Filters | None = None) -> int: ...
    def age_counts(self, bounds: Sequence[str], people: Filters | None = None) -> list[tuple[str, int, int]]: ...
    def type_counts(self, *, active_only: bool = False, people: Filters | None = None) -> list[tuple[str, int]]: ...


class PmStore(Protocol):
    def count_created(self, types: Sequence[str], since: str, people: Filters | None = None) -> int: ...
    def stale_count(
        self, types: Sequence[str], *, accessed_before: str, created_before: str, people: Filters | None = None
    ) -> int: ...
    def open_count(self, types: Sequence[str], created_before: str, people: Filters | None = None) -> int: ...
    def orphan_counts(self, people: Filters | None = None) -> tuple[int, int, int]: ...


def analytics(
    store: AnalyticsStore, _request: AnalyticsInput, /, *, ctx: CallContext
) -> Result[AnalyticsOutput, MemeshError]:
    """Health score and factors, lessons by severity, citation compliance, the 30-day timeline, the reuse loop, the
    age matrix and the knowledge radar; an empty database gives zeros, never a failure."""
    now = ctx.now
    people = access.counted(ctx.caller)  # a member's figures are of what it may see (issue 32)
    active, accessed, confident, new, lessons = store.health_counts(
        accessed_since=iso_time(rules.threshold(now, rules.ACTIVITY_WINDOW_DAYS)),
        created_since=sqlite_time(rules.threshold(now, rules.FRESHNESS_WINDOW_DAYS)),
        confidence_above=rules.QUALITY_CONFIDENCE,
        lesson_types=rules.LESSON_TYPES,
        people=people,
    )
    factors = rules.health_factors(rules.HealthInputs(active, accessed, confident, new, lessons))
    critical, severity_tagged, total = store.lesson_severity(rules.LESSON_TYPES, people)
    today = now.date()
    first_day = rules.days_back(today, rules.TIMELINE_DAYS)[0].isoformat()
    trend_from = min(rules.trend_start(today).isoformat(), first_day)
    accessed_days = store.accessed_per_day(trend_from, people)
    # Age buckets by creation time, newest bound first: younger than a week, a month, a quarter; then older.
    bounds = [sqlite_time(rules.threshold(now, limit)) for _, limit in rules.AGE_BUCKETS if limit is not None]
    buckets = [bucket for bucket, _ in rules.AGE_BUCKETS]
    cells = [(kind, buckets[index], count) for kind, index, count in store.age_counts(bounds, people)]
    result: dict[str, Any] = {
        "healthScore": rules.health_score(factors),
        "healthFactors": {
            name: {"score": f.score, "weight": f.weight, "detail": f.detail} for name, f in factors.items()
        },
        "criticalLessons": {"critical": critical, "severityTagged": severity_tagged, "total": total},
        "citationCompliance": rules.citation_compliance(*store.citation_counts(people)),
        "timeline": rules.timeline(today, store.created_per_day(first_day, people), accessed_days),
        "loopMetric": {
            "reusedThisWeek": store.accessed_since(iso_time(rules.threshold(now, rules.FRESHNESS_WINDOW_DAYS)), people),
            "trend": rules.weekly_trend(today, accessed_days),
            "computedFrom": "last_accessed_at_approximation",
        },
        "ageMatrix": rules.age_matrix(cells),
        "knowledgeRadar": rules.knowledge_radar(
            rules.type_counts_from(store.type_counts(active_only=True, people=people))
        ),
    }
    return Success(cast(AnalyticsOutput, result))


def analytics_pm(
    store: PmStore, request: AnalyticsPmInput, /, *, ctx: CallContext
) -> Result[AnalyticsPmOutput, MemeshError]:
    """Decisions per week and releases per month over the window, stale plans, open decisions, and how many active
    memories have no relation; the window is validated at the edge (1-365 days)."""
    window = request.get("window", PM_DEFAULT_WINDOW)
    now = ctx.now
    since = sqlite_time(rules.threshold(now, window))
    people = access.counted(ctx.caller)
    active, orphans, relations = store.orphan_counts(people)
    return Success(
        {
            "velocity": {
                "decisionsPerWeek": rules.per_period(store.count_created(DECISION_TYPES, since, people), window, 7),
                "releasesPerMonth": rules.per_period(store.count_created(RELEASE_TYPES, since, people), window, 30),
                "windowDays": window,
            },
            "staleness": {
                "stalePlanCount": store.stale_count(
                    PLAN_TYPES,
                    accessed_before=iso_time(rules.threshold(now, STALE_PLAN_DAYS)),
                    created_before=sqlite_time(rules.threshold(now, STALE_PLAN_DAYS)),
                    people=people,
                ),
                "openDecisionCount": store.open_count(
                    DECISION_TYPES, sqlite_time(rules.threshold(now, OPEN_DECISION_DAYS)), people
                ),
            },
            "connectedness": {
                "orphanRate": rules.orphan_rate(orphans, active),
                "totalRelations": relations,
                "activeEntities": active,
            },
        }
    )
