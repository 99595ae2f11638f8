"""stats, analytics, analytics/pm, projects and user_patterns over a real database: empty, seeded, and broken."""

from __future__ import annotations

from datetime import timedelta
from typing import TYPE_CHECKING, Any

import pytest
from jsonschema import Draft202012Validator

from memesh.context import CallContext
from memesh.model import iso_time, sqlite_time
from memesh.ops import analytics, demo, projects, stats
from memesh.schema import files as schemas
from memesh.store.sqlite import SqliteStore

if TYPE_CHECKING:
    from tests.conftest import Caller

SCHEMAS = {
    "stats": "http/stats.output",
    "analytics": "http/analytics.output",
    "pm": "http/analytics_pm.output",
    "projects": "http/projects.output",
    "patterns": "tools/user_patterns.output",
}


def _answers(store: SqliteStore, ctx: CallContext, tools: Caller) -> dict[str, Any]:
    return {
        "stats": stats.stats(store, {}, ctx=ctx).unwrap(),
        "analytics": analytics.analytics(store, {}, ctx=ctx).unwrap(),
        "pm": analytics.analytics_pm(store, {}, ctx=ctx).unwrap(),
        "projects": projects.projects(store, {}, ctx=ctx).unwrap(),
        "patterns": tools.ok("user_patterns", {}),
    }


def _assert_schemas(answers: dict[str, Any]) -> None:
    for key, answer in answers.items():
        validator = Draft202012Validator(schemas.load(SCHEMAS[key]))
        assert [error.message for error in validator.iter_errors(answer)] == [], key


def _insert_raw(
    store: SqliteStore, name: str, *, metadata: str = "{}", created_at: str = "2026-11-29 10:00:00"
) -> None:
    with store.transaction():
        store.conn.execute(
            "INSERT INTO entities (name, type, metadata, created_at) VALUES (?, 'note', ?, ?)",
            (name, metadata, created_at),
        )


def test_an_empty_database_answers_every_read_with_zeros(
    fresh_db: SqliteStore, ctx: CallContext, tools: Caller
) -> None:
    answers = _answers(fresh_db, ctx, tools)
    _assert_schemas(answers)
    assert answers["stats"]["totalEntities"] == 0
    assert answers["analytics"]["healthScore"] == 0
    assert len(answers["analytics"]["timeline"]) == 30
    assert answers["analytics"]["citationCompliance"] is None
    assert answers["pm"]["connectedness"] == {"orphanRate": 0.0, "totalRelations": 0, "activeEntities": 0}
    assert answers["projects"] == []
    assert answers["patterns"]["workflow"]["totalSessions"] == 0


def test_the_demo_tour_gives_every_read_something_to_show(
    fresh_db: SqliteStore, ctx: CallContext, tools: Caller
) -> None:
    demo.seed(fresh_db, {}, ctx=ctx)
    answers = _answers(fresh_db, ctx, tools)
    _assert_schemas(answers)
    assert answers["stats"]["totalEntities"] == 12
    assert {"status": "active", "count": 12} in answers["stats"]["statusDistribution"]
    assert answers["analytics"]["criticalLessons"] == {"critical": 1, "severityTagged": 3, "total": 3}
    assert sum(day["created"] for day in answers["analytics"]["timeline"]) >= 5
    assert answers["pm"]["velocity"]["releasesPerMonth"] == 1.0
    assert answers["pm"]["staleness"]["stalePlanCount"] == 1
    assert answers["projects"][0]["name"] == "memesh-demo"
    assert answers["patterns"]["workflow"]["avgSessionMinutes"] == 48
    assert answers["patterns"]["toolPreferences"][0] == {"tool": "Bash", "sessions": 1}


@pytest.mark.sqlite_only
def test_rows_with_broken_metadata_and_times_are_counted_not_fatal(
    fresh_db: SqliteStore, ctx: CallContext, tools: Caller
) -> None:
    _insert_raw(fresh_db, "broken-json", metadata="{not json")
    _insert_raw(fresh_db, "array-metadata", metadata="[1,2]")
    _insert_raw(fresh_db, "no-time", created_at="yesterday-ish")
    fresh_db.conn.execute("UPDATE entities SET last_accessed_at = 'whenever' WHERE name = 'no-time'")
    answers = _answers(fresh_db, ctx, tools)
    _assert_schemas(answers)
    assert answers["stats"]["totalEntities"] == 3
    hours = answers["patterns"]["workSchedule"]["hourDistribution"]
    assert sum(row["count"] for row in hours) == 2  # the row with no time is in no hour


def test_activity_counts_memories_recalled_in_the_last_30_days(
    fresh_db: SqliteStore, ctx: CallContext, tools: Caller
) -> None:
    for name in ("a", "b", "c"):
        tools.ok("remember", {"name": name, "type": "fact", "observations": [f"{name} fact"]})
    fresh_db.touch([1, 2], iso_time(ctx.now - timedelta(days=1)))
    fresh_db.touch([3], iso_time(ctx.now - timedelta(days=40)))
    result = analytics.analytics(fresh_db, {}, ctx=ctx).unwrap()
    assert result["healthFactors"]["activity"]["detail"] == "2/3 active entities accessed in last 30 days"
    assert result["healthFactors"]["activity"]["score"] == 20
    assert result["loopMetric"]["reusedThisWeek"] == 2
    assert result["timeline"][-2]["recalled"] == 2


def test_an_archived_memory_leaves_health_but_stays_in_stats(
    fresh_db: SqliteStore, ctx: CallContext, tools: Caller
) -> None:
    tools.ok("remember", {"name": "gone", "type": "lesson_learned", "observations": ["x"]})
    tools.ok("forget", {"name": "gone"})
    assert stats.stats(fresh_db, {}, ctx=ctx).unwrap()["statusDistribution"] == [{"status": "archived", "count": 1}]
    assert analytics.analytics(fresh_db, {}, ctx=ctx).unwrap()["healthFactors"]["lessons"]["score"] == 0


def test_an_open_decision_is_one_older_than_14_days_that_nothing_supersedes(
    fresh_db: SqliteStore, ctx: CallContext
) -> None:
    old = sqlite_time(ctx.now - timedelta(days=20))
    for name in ("d-open", "d-superseded", "d-new"):
        _insert_raw(fresh_db, name, created_at=old if name != "d-new" else sqlite_time(ctx.now))
    with fresh_db.transaction():
        fresh_db.conn.execute("UPDATE entities SET type = 'decision'")
        fresh_db.create_relation("d-new", "d-superseded", "supersedes")
    pm = analytics.analytics_pm(fresh_db, {"window": 7}, ctx=ctx).unwrap()
    assert pm["staleness"]["openDecisionCount"] == 1
    assert pm["velocity"] == {"decisionsPerWeek": 1.0, "releasesPerMonth": 0.0, "windowDays": 7}
    assert pm["connectedness"]["orphanRate"] == 0.333


@pytest.mark.parametrize("categories", [["workflow"], ["workSchedule", "strengths"]])
def test_user_patterns_returns_only_the_categories_asked_for(tools: Caller, categories: list[str]) -> None:
    assert set(tools.ok("user_patterns", {"categories": categories})) == set(categories)


def test_user_patterns_refuses_an_unknown_category_naming_the_item(tools: Caller) -> None:
    error = tools.fails("user_patterns", {"categories": ["moods"]})
    assert error.code == "validation.bad-body"
    assert error.message.startswith("categories.0: ")
