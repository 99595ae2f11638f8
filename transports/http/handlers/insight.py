"""The read surfaces — stats, analytics, PM analytics, patterns, projects, update status — and the demo writes."""

from __future__ import annotations

from collections.abc import Callable

import anyio.to_thread
from starlette.requests import Request
from starlette.responses import Response

import memesh
from memesh.adapters import update_check
from memesh.app import dispatch
from memesh.app.registry import USER_PATTERNS
from memesh.ops import analytics as analytics_op
from memesh.ops import demo
from memesh.ops import projects as projects_op
from memesh.ops import stats as stats_op
from memesh.ops.update_status import update_status as update_status_op
from memesh.transports.http import respond
from memesh.transports.http.handlers.common import endpoint, http_context, params, runtime

NO_PARAMS = "http/no_params.query"


@endpoint
async def stats(request: Request) -> Response:
    params(request, NO_PARAMS)
    return respond.result(await runtime(request).run(stats_op.stats))


@endpoint
async def analytics(request: Request) -> Response:
    params(request, NO_PARAMS)
    return respond.result(await runtime(request).run(lambda store: analytics_op.analytics(store, ctx=http_context())))


@endpoint
async def analytics_pm(request: Request) -> Response:
    query = params(request, "http/analytics_pm.query")
    return respond.result(
        await runtime(request).run(
            lambda store: analytics_op.analytics_pm(store, query, ctx=http_context())  # type: ignore[arg-type]
        )
    )


@endpoint
async def patterns(request: Request) -> Response:
    # The tool's own input schema is the query's: ?categories=workflow,strengths.
    query = params(request, USER_PATTERNS.input_schema)
    return respond.result(
        await runtime(request).run(lambda store: dispatch.run(USER_PATTERNS, store, query, http_context()))
    )


@endpoint
async def projects(request: Request) -> Response:
    params(request, NO_PARAMS)
    return respond.result(await runtime(request).run(projects_op.projects))


@endpoint
async def update_status(request: Request) -> Response:
    query = params(request, "http/update_status.query")
    fetch: Callable[[], str] | None = request.app.state.update_fetch

    def run() -> Response:
        return respond.result(
            update_status_op(
                update_check.CacheFile(),
                fetch,
                query,  # type: ignore[arg-type]
                current=memesh.__version__,
                channel=update_check.install_channel(),
                ctx=http_context(),
            )
        )

    # The lookup is bounded (a few seconds) but blocking: off the event loop, and no database is opened for it.
    return await anyio.to_thread.run_sync(run)


@endpoint
async def demo_seed(request: Request) -> Response:
    return respond.result(await runtime(request).run(lambda store: demo.seed(store, ctx=http_context())))


@endpoint
async def demo_reset(request: Request) -> Response:
    return respond.result(await runtime(request).run(demo.reset))
