"""Entries of the read surfaces over the whole memory (stats, analytics, projects, PM figures, update status), the
demo tour, and the feedback report built from them."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from memesh.app.registry import Op, Operation
from memesh.app.resources import Resources, Store, the_store, themselves

if TYPE_CHECKING:
    from memesh.generated.cli.feedback_input import FeedbackInput
    from memesh.generated.cli.feedback_output import FeedbackOutput
    from memesh.generated.http.analytics_input import AnalyticsInput
    from memesh.generated.http.analytics_output import AnalyticsOutput
    from memesh.generated.http.analytics_pm_input import AnalyticsPmInput
    from memesh.generated.http.analytics_pm_output import AnalyticsPmOutput
    from memesh.generated.http.demo_input import DemoInput
    from memesh.generated.http.demo_output import DemoOutput
    from memesh.generated.http.projects_input import ProjectsInput
    from memesh.generated.http.projects_output import ProjectsOutput
    from memesh.generated.http.stats_input import StatsInput
    from memesh.generated.http.stats_output import StatsOutput
    from memesh.generated.http.update_status_input import UpdateStatusInput
    from memesh.generated.http.update_status_output import UpdateStatus


def _stats() -> Operation[Store, StatsInput, StatsOutput]:
    from memesh.ops.stats import stats

    return stats


def _analytics() -> Operation[Store, AnalyticsInput, AnalyticsOutput]:
    from memesh.ops.analytics import analytics

    return analytics


def _projects() -> Operation[Store, ProjectsInput, ProjectsOutput]:
    from memesh.ops.projects import projects

    return projects


def _analytics_pm() -> Operation[Store, AnalyticsPmInput, AnalyticsPmOutput]:
    from memesh.ops.analytics import analytics_pm

    return analytics_pm


def _update_status() -> Operation[Resources, UpdateStatusInput, UpdateStatus]:
    from memesh.ops.update_status import update_status

    return update_status


def _demo_seed() -> Operation[Store, DemoInput, DemoOutput]:
    from memesh.ops.demo import seed

    return seed


def _demo_reset() -> Operation[Store, DemoInput, DemoOutput]:
    from memesh.ops.demo import reset

    return reset


def _feedback() -> Operation[Resources, FeedbackInput, FeedbackOutput]:
    from memesh.ops.feedback import feedback

    return feedback


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
ANALYTICS_PM = Op(
    name="analytics_pm",
    input_schema="http/analytics_pm.input",
    output_schema="http/analytics_pm.output",
    load=_analytics_pm,
    uses=the_store,
    summary="Decision velocity, staleness and connectedness over a window",
)
# No database: the cache file and, unless `cached`, the package-index lookup the transport was handed.
UPDATE_STATUS = Op(
    name="update_status",
    input_schema="http/update_status.input",
    output_schema="http/update_status.output",
    load=_update_status,
    uses=themselves,
    summary="This version against the newest release, and how to update",
)
DEMO_SEED = Op(
    name="demo_seed",
    input_schema="http/demo.input",
    output_schema="http/demo.output",
    load=_demo_seed,
    uses=the_store,
    summary="Insert the demo tour (memories marked demo)",
)
DEMO_RESET = Op(
    name="demo_reset",
    input_schema="http/demo.input",
    output_schema="http/demo.output",
    load=_demo_reset,
    uses=the_store,
    summary="Remove every demo memory, all or nothing",
)
FEEDBACK = Op(
    name="feedback",
    input_schema="cli/feedback.input",
    output_schema="cli/feedback.output",
    load=_feedback,
    uses=themselves,
    summary="The pre-filled public issue for a bug, a feature or a question",
)

OPS: tuple[Op[Any, Any, Any], ...] = (
    STATS,
    ANALYTICS,
    PROJECTS,
    ANALYTICS_PM,
    UPDATE_STATUS,
    DEMO_SEED,
    DEMO_RESET,
    FEEDBACK,
)
