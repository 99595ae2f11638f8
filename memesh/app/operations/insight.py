"""Entries of the read surfaces over the whole memory: stats, analytics, projects."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from memesh.app.registry import Op, Operation
from memesh.app.resources import Store, the_store

if TYPE_CHECKING:
    from memesh.generated.http.analytics_input import AnalyticsInput
    from memesh.generated.http.analytics_output import AnalyticsOutput
    from memesh.generated.http.projects_input import ProjectsInput
    from memesh.generated.http.projects_output import ProjectsOutput
    from memesh.generated.http.stats_input import StatsInput
    from memesh.generated.http.stats_output import StatsOutput


def _stats() -> Operation[Store, StatsInput, StatsOutput]:
    from memesh.ops.stats import stats

    return stats


def _analytics() -> Operation[Store, AnalyticsInput, AnalyticsOutput]:
    from memesh.ops.analytics import analytics

    return analytics


def _projects() -> Operation[Store, ProjectsInput, ProjectsOutput]:
    from memesh.ops.projects import projects

    return projects


STATS = Op(
    name="stats",
    input_schema="http/stats.input",
    output_schema="http/stats.output",
    load=_stats,
    uses=the_store,
    summary="Aggregate counts and distributions of the memory",
)
ANALYTICS = Op(
    name="analytics",
    input_schema="http/analytics.input",
    output_schema="http/analytics.output",
    load=_analytics,
    uses=the_store,
    summary="The health score and the series the dashboard draws",
)
PROJECTS = Op(
    name="projects",
    input_schema="http/projects.input",
    output_schema="http/projects.output",
    load=_projects,
    uses=the_store,
    summary="The projects memory knows, largest first",
)

OPS: tuple[Op[Any, Any, Any], ...] = (STATS, ANALYTICS, PROJECTS)
