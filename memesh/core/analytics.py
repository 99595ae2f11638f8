"""The analytics rules as pure functions: the health score, the day and week series, age buckets, the radar axes and
the project-management figures. Inputs are plain counts and dates the store gathered; nothing here reads a database.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from datetime import date, datetime, timedelta
from typing import Final, Literal

from memesh.records import dataclass

ACTIVITY_WINDOW_DAYS: Final = 30
FRESHNESS_WINDOW_DAYS: Final = 7
QUALITY_CONFIDENCE: Final = 0.7  # strictly above counts as good quality
LESSONS_FOR_FULL_SCORE: Final = 5
TIMELINE_DAYS: Final = 30
TREND_WEEKS: Final = 8

WEIGHTS: Final = {"activity": 30, "quality": 30, "freshness": 20, "lessons": 20}

# The types a lesson is stored under (lesson and mistake are older spellings of lesson_learned).
LESSON_TYPES: Final = ("lesson_learned", "lesson", "mistake")

Bucket = Literal["week", "month", "quarter", "older"]
# Upper bound of each age bucket in days (a memory exactly 7 days old is in "month").
AGE_BUCKETS: Final[tuple[tuple[Bucket, int | None], ...]] = (
    ("week", 7),
    ("month", 30),
    ("quarter", 90),
    ("older", None),
)
AGE_MATRIX_TYPES: Final = 12  # the most common types; the rest would make an unreadable grid

# The knowledge radar's axes: each counts the active memories of its types. A type belongs to one axis at most.
RADAR_AXES: Final[tuple[tuple[str, tuple[str, ...]], ...]] = (
    ("lessons", LESSON_TYPES),
    ("decisions", ("decision", "architecture_decision", "design_decision")),
    ("patterns", ("pattern", "best_practice", "convention")),
    ("bugs", ("bug_fix", "bug", "incident")),
    ("features", ("feature", "implementation", "component")),
    ("facts", ("fact", "concept", "reference", "note")),
    ("sessions", ("session_keypoint", "session-insight", "session_identity", "session-handoff", "workflow_checkpoint")),
    ("commits", ("commit",)),
)


@dataclass(frozen=True)
class HealthInputs:
    """Counts over active memories: all of them, accessed in the last 30 days, with confidence above 0.7, created
    in the last 7 days, and lessons."""

    active: int
    accessed_recently: int
    confident: int
    new_this_week: int
    lessons: int


@dataclass(frozen=True)
class Factor:
    score: int
    weight: int
    detail: str


def _share(part: int, whole: int) -> float:
    return min(part / whole, 1.0) if whole > 0 else 0.0


def health_factors(inputs: HealthInputs) -> dict[str, Factor]:
    """The four weighted factors; each score is its weight times a share in 0..1, rounded to a whole number."""
    lessons = "lesson" if inputs.lessons == 1 else "lessons"
    entities = "entity" if inputs.new_this_week == 1 else "entities"
    return {
        "activity": Factor(
            round(WEIGHTS["activity"] * _share(inputs.accessed_recently, inputs.active)),
            WEIGHTS["activity"],
            f"{inputs.accessed_recently}/{inputs.active} active entities accessed in last {ACTIVITY_WINDOW_DAYS} days",
        ),
        "quality": Factor(
            round(WEIGHTS["quality"] * _share(inputs.confident, inputs.active)),
            WEIGHTS["quality"],
            f"{inputs.confident}/{inputs.active} active entities with confidence > {QUALITY_CONFIDENCE}",
        ),
        "freshness": Factor(
            round(WEIGHTS["freshness"] * _share(inputs.new_this_week, inputs.active)),
            WEIGHTS["freshness"],
            f"{inputs.new_this_week} new {entities} this week",
        ),
        "lessons": Factor(
            round(WEIGHTS["lessons"] * _share(inputs.lessons, LESSONS_FOR_FULL_SCORE)),
            WEIGHTS["lessons"],
            f"{inputs.lessons} {lessons} learned",
        ),
    }


def health_score(factors: Mapping[str, Factor]) -> int:
    """The sum of the factor scores: 0 to 100."""
    return max(0, min(100, sum(factor.score for factor in factors.values())))


def days_back(today: date, count: int) -> list[date]:
    """The `count` days ending with `today`, oldest first."""
    return [today - timedelta(days=offset) for offset in range(count - 1, -1, -1)]


def timeline(
    today: date, created: Mapping[str, int], recalled: Mapping[str, int], days: int = TIMELINE_DAYS
) -> list[dict[str, int | str]]:
    """One entry per day of the window, oldest first, zeros where nothing happened (keys are `YYYY-MM-DD`)."""
    out: list[dict[str, int | str]] = []
    for day in days_back(today, days):
        key = day.isoformat()
        out.append({"date": key, "created": created.get(key, 0), "recalled": recalled.get(key, 0)})
    return out


def week_start(day: date) -> date:
    """The Monday that starts the ISO week holding `day`."""
    return day - timedelta(days=day.weekday())


def weekly_trend(today: date, per_day: Mapping[str, int], weeks: int = TREND_WEEKS) -> list[dict[str, int | str]]:
    """Daily counts summed into the last `weeks` ISO weeks (the current one included), oldest first."""
    current = week_start(today)
    starts = [current - timedelta(weeks=offset) for offset in range(weeks - 1, -1, -1)]
    totals = dict.fromkeys(starts, 0)
    for key, count in per_day.items():
        try:
            start = week_start(date.fromisoformat(key))
        except ValueError:  # a stored timestamp MeMesh did not write: not a day, so in no week
            continue
        if start in totals:
            totals[start] += count
    return [{"date": start.isoformat(), "count": totals[start]} for start in starts]


def trend_start(today: date, weeks: int = TREND_WEEKS) -> date:
    """The first day the weekly trend covers."""
    return week_start(today) - timedelta(weeks=weeks - 1)


def age_bucket(age_days: float) -> Bucket:
    """Which age bucket a memory `age_days` old falls in."""
    for bucket, limit in AGE_BUCKETS:
        if limit is None or age_days < limit:
            return bucket
    return "older"  # pragma: no cover - the last bucket has no limit


def age_matrix(rows: Iterable[tuple[str, Bucket, int]], type_limit: int = AGE_MATRIX_TYPES) -> list[dict[str, object]]:
    """(type, bucket, count) cells for the most common types, types by total descending then name, buckets young to
    old; empty cells are left out."""
    totals: dict[str, int] = {}
    cells: dict[tuple[str, Bucket], int] = {}
    for entity_type, bucket, count in rows:
        if count <= 0:
            continue
        totals[entity_type] = totals.get(entity_type, 0) + count
        cells[(entity_type, bucket)] = cells.get((entity_type, bucket), 0) + count
    kept = sorted(totals, key=lambda name: (-totals[name], name))[:type_limit]
    order = [bucket for bucket, _ in AGE_BUCKETS]
    return [
        {"type": entity_type, "bucket": bucket, "count": cells[(entity_type, bucket)]}
        for entity_type in kept
        for bucket in order
        if (entity_type, bucket) in cells
    ]


def knowledge_radar(type_counts: Mapping[str, int]) -> list[dict[str, object]]:
    """Every radar axis with the active-memory count of its types (axes with none are kept, at 0)."""
    return [
        {"axis": axis, "count": sum(type_counts.get(name, 0) for name in types), "types": list(types)}
        for axis, types in RADAR_AXES
    ]


def citation_compliance(cited: int, checked: int) -> dict[str, int | float] | None:
    """The share of checked injections that were cited; None when nothing was checked yet."""
    if checked <= 0:
        return None
    return {"cited": cited, "checked": checked, "rate": round(cited / checked, 3)}


def per_period(count: int, window_days: int, period_days: int) -> float:
    """`count` events over `window_days`, as a rate per `period_days`, to one decimal."""
    return round(count * period_days / window_days, 1) if window_days > 0 else 0.0


def orphan_rate(orphans: int, active: int) -> float:
    """The share of active memories with no relation at all, to three decimals (0 when there are none)."""
    return round(orphans / active, 3) if active > 0 else 0.0


def threshold(now: datetime, days: float) -> datetime:
    """The moment `days` before `now`."""
    return now - timedelta(days=days)


def type_counts_from(rows: Sequence[tuple[str, int]]) -> dict[str, int]:
    """(type, count) rows as a mapping (a type appearing twice is summed)."""
    counts: dict[str, int] = {}
    for entity_type, count in rows:
        counts[entity_type] = counts.get(entity_type, 0) + count
    return counts
