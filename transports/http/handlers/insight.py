"""The read surfaces — stats, analytics, PM analytics, patterns, projects, update status — and the demo writes."""

from __future__ import annotations

from collections.abc import Callable

import anyio.to_thread
from starlette.requests import Request
from starlette.responses import Response

import memesh
from memesh.adapters import update_check
from memesh.ops import analytics as analytics_op
from memesh.ops import demo
from memesh.ops.update_status import update_status as update_status_op
from memesh.transports.http import respond
from memesh.transports.http.handlers.common import endpoint, http_context, params, runtime


@endpoint
async def analytics_pm(request: Request) -> Response:
    query = params(request, "http/analytics_pm.query")
    return respond.result(
        await runtime(request).run(
            lambda store: analytics_op.analytics_pm(store, query, ctx=http_context(request))  # type: ignore[arg-type]
        )
    )


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
                ctx=http_context(request),
            )
        )

    # The lookup is bounded (a few seconds) but blocking: off the event loop, and no database is opened for it.
    return await anyio.to_thread.run_sync(run)


@endpoint
async def demo_seed(request: Request) -> Response:
    return respond.result(await runtime(request).run(lambda store: demo.seed(store, ctx=http_context(request))))


@endpoint
async def demo_reset(request: Request) -> Response:
    return respond.result(await runtime(request).run(demo.reset))
