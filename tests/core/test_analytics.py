"""The analytics rules with plain values: health factors, day and week series, age buckets, radar and PM math."""

from __future__ import annotations

from datetime import date

from memesh.core import analytics as rules
from memesh.core.analytics import HealthInputs


def test_health_factors_weigh_each_share_as_the_spec_example_does() -> None:
    factors = rules.health_factors(HealthInputs(active=3, accessed_recently=2, confident=2, new_this_week=1, lessons=5))
    assert factors["activity"].score == 20
    assert factors["activity"].weight == 30
    assert factors["activity"].detail == "2/3 active entities accessed in last 30 days"
    assert factors["lessons"].score == 20
    assert factors["lessons"].detail == "5 lessons learned"


def test_quality_of_four_in_five_scores_24_of_30() -> None:
    factors = rules.health_factors(HealthInputs(active=5, accessed_recently=0, confident=4, new_this_week=0, lessons=0))
    assert (factors["quality"].score, factors["quality"].detail) == (24, "4/5 active entities with confidence > 0.7")


def test_freshness_is_new_this_week_over_active_capped_at_full_weight() -> None:
    assert rules.health_factors(HealthInputs(10, 0, 0, 4, 0))["freshness"].score == 8
    assert rules.health_factors(HealthInputs(2, 0, 0, 9, 0))["freshness"].score == 20


def test_lessons_reach_full_score_at_five_and_never_exceed_it() -> None:
    assert rules.health_factors(HealthInputs(0, 0, 0, 0, 2))["lessons"].score == 8
    assert rules.health_factors(HealthInputs(0, 0, 0, 0, 500))["lessons"].score == 20


def test_an_empty_database_scores_zero_without_dividing_by_zero() -> None:
    factors = rules.health_factors(HealthInputs(0, 0, 0, 0, 0))
    assert rules.health_score(factors) == 0
    assert factors["activity"].detail == "0/0 active entities accessed in last 30 days"


def test_health_score_is_the_sum_of_factor_scores() -> None:
    factors = rules.health_factors(HealthInputs(active=3, accessed_recently=2, confident=3, new_this_week=3, lessons=5))
    assert rules.health_score(factors) == 20 + 30 + 20 + 20


def test_timeline_has_every_day_of_the_window_oldest_first() -> None:
    series = rules.timeline(date(2026, 3, 3), {"2026-03-02": 4}, {"2026-03-03": 1}, days=3)
    assert series == [
        {"date": "2026-03-01", "created": 0, "recalled": 0},
        {"date": "2026-03-02", "created": 4, "recalled": 0},
        {"date": "2026-03-03", "created": 0, "recalled": 1},
    ]


def test_weekly_trend_sums_days_into_iso_weeks_starting_monday() -> None:
    today = date(2026, 3, 4)  # a Wednesday
    trend = rules.weekly_trend(today, {"2026-03-02": 2, "2026-03-04": 1, "2026-02-27": 5, "garbage": 9}, weeks=2)
    assert trend == [{"date": "2026-02-23", "count": 5}, {"date": "2026-03-02", "count": 3}]


def test_age_buckets_are_half_open_at_7_30_and_90_days() -> None:
    assert [rules.age_bucket(d) for d in (0, 6.9, 7, 29, 30, 89, 90, 4000)] == [
        "week",
        "week",
        "month",
        "month",
        "quarter",
        "quarter",
        "older",
        "older",
    ]


def test_age_matrix_keeps_the_most_common_types_and_drops_empty_cells() -> None:
    rows: list[tuple[str, rules.Bucket, int]] = [
        ("a", "week", 1),
        ("b", "older", 5),
        ("a", "older", 1),
        ("c", "week", 0),
        ("b", "week", 1),
    ]
    assert rules.age_matrix(rows, type_limit=2) == [
        {"type": "b", "bucket": "week", "count": 1},
        {"type": "b", "bucket": "older", "count": 5},
        {"type": "a", "bucket": "week", "count": 1},
        {"type": "a", "bucket": "older", "count": 1},
    ]


def test_radar_counts_every_spelling_of_a_lesson_and_keeps_empty_axes() -> None:
    radar = {row["axis"]: row for row in rules.knowledge_radar({"lesson_learned": 3, "mistake": 1, "decision": 2})}
    assert radar["lessons"]["count"] == 4
    assert radar["lessons"]["types"] == ["lesson_learned", "lesson", "mistake"]
    assert radar["decisions"]["count"] == 2
    assert radar["commits"]["count"] == 0


def test_citation_compliance_is_null_until_something_was_checked() -> None:
    assert rules.citation_compliance(0, 0) is None
    assert rules.citation_compliance(2, 3) == {"cited": 2, "checked": 3, "rate": 0.667}


def test_rates_per_week_and_month_round_to_one_decimal() -> None:
    assert rules.per_period(9, 30, 7) == 2.1
    assert rules.per_period(1, 60, 30) == 0.5
    assert rules.per_period(3, 0, 7) == 0.0


def test_orphan_rate_is_zero_with_no_active_memories() -> None:
    assert rules.orphan_rate(0, 0) == 0.0
    assert rules.orphan_rate(1, 3) == 0.333
