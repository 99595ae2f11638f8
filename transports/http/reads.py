"""The read surfaces' routes — stats, analytics, PM analytics, patterns, projects, update status — and the demo
writes, as (method, path) → handler. A handler takes the app's store (or none), the parsed query and the call
context, and returns the operation's Result; query strings pass `memesh.schema.params` against their schema file.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from returns.result import Result

import memesh
from memesh.adapters import update_check
from memesh.app import dispatch
from memesh.context import CallContext
from memesh.errors import MemeshError
from memesh.ops import analytics, demo, projects, stats, update_status
from memesh.schema import params
from memesh.store.sqlite import SqliteStore

Query = Mapping[str, list[str]]
Fetcher = Callable[[], str]


@dataclass(frozen=True)
class ReadRoute:
    """`run(store, query, ctx)`; `query_schema` names the schema file the query must fit (None: no parameters).
    `needs_store` False runs without opening the database (the update status needs only the cache file)."""

    run: Callable[[SqliteStore | None, dict[str, Any], CallContext], Result[Any, MemeshError]]
    query_schema: str | None = None
    needs_store: bool = True


def _store(store: SqliteStore | None) -> SqliteStore:
    assert store is not None
    return store


def _update_status(fetch: Fetcher | None) -> ReadRoute:
    def run(_: SqliteStore | None, query: dict[str, Any], ctx: CallContext) -> Result[Any, MemeshError]:
        return update_status.update_status(
            update_check.CacheFile(),
            fetch,
            query,  # type: ignore[arg-type]
            current=memesh.__version__,
            channel=update_check.install_channel(),
            ctx=ctx,
        )

    return ReadRoute(run, "http/update-status.query", needs_store=False)


def get_routes(fetch: Fetcher | None) -> dict[str, ReadRoute]:
    """GET routes; `fetch` is the package-index lookup (None: never looked up)."""
    return {
        "/v1/stats": ReadRoute(lambda store, _q, _c: stats.stats(_store(store))),
        "/v1/analytics": ReadRoute(lambda store, _q, ctx: analytics.analytics(_store(store), ctx=ctx)),
        "/v1/analytics/pm": ReadRoute(
            lambda store, query, ctx: analytics.analytics_pm(_store(store), query, ctx=ctx),  # type: ignore[arg-type]
            "http/analytics-pm.query",
        ),
        # The tool's own input schema is the query's: ?categories=workflow,strengths.
        "/v1/patterns": ReadRoute(
            lambda store, query, ctx: dispatch.call("user_patterns", _store(store), query, ctx),
            "tools/user_patterns.input",
        ),
        "/v1/projects": ReadRoute(lambda store, _q, _c: projects.projects(_store(store))),
        "/v1/update-status": _update_status(fetch),
    }


POST_ROUTES: dict[str, Callable[[SqliteStore, CallContext], Result[Any, MemeshError]]] = {
    "/v1/demo/seed": lambda store, ctx: demo.seed(store, ctx=ctx),
    "/v1/demo/reset": lambda store, _ctx: demo.reset(store),
}


def parse_query(route: ReadRoute, query: Query) -> Result[dict[str, Any], MemeshError]:
    """The query as the route's schema types it (a route without parameters refuses any)."""
    return params.parse(route.query_schema or "http/no-params.query", query)
