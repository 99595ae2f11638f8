"""The routes of memory that reaches an agent on its own: the briefing index, doctor and its repair, why."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import anyio.to_thread
from returns.result import Failure, Result, Success
from starlette.requests import Request
from starlette.responses import Response

from memesh.app import gate
from memesh.app.database import open_database
from memesh.core.briefing_index import STALE_DAYS
from memesh.errors import MemeshError
from memesh.transports.http import respond
from memesh.transports.http.handlers.common import endpoint, http_context, json_body, params, runtime


@endpoint
async def briefing_index(request: Request) -> Response:
    from memesh.ops.briefing import briefing_index_of

    project = params(request, "http/briefing_index.query")["project"]
    ctx = http_context(request)

    def index(store: Any) -> Result[dict[str, Any], MemeshError]:
        return Success({"project": project, "staleDays": STALE_DAYS, **briefing_index_of(store, project, ctx=ctx)})

    return respond.result(await runtime(request).run(index))


@endpoint
async def doctor(request: Request) -> Response:
    """The suite on its own connection: it must also report a database the listener cannot open."""
    from memesh.ops import doctor as suite

    path = runtime(request).db_path
    result = await anyio.to_thread.run_sync(lambda: suite.run(lambda: open_database(path), datetime.now(UTC)))
    return respond.ok(result)


@endpoint
async def doctor_fix(request: Request) -> Response:
    from memesh.ops import doctor as suite

    body = await json_body(request)
    path = runtime(request).db_path

    def repair() -> Result[dict[str, Any], MemeshError]:
        match gate.admit("http/doctor_fix.input", body):
            case Success(admitted):
                return suite.fix(admitted["id"], lambda: open_database(path), datetime.now(UTC))
            case Failure() as refused:
                return refused
        raise AssertionError("unreachable")  # pragma: no cover

    return respond.result(await anyio.to_thread.run_sync(repair))


@endpoint
async def why(request: Request) -> Response:
    from memesh.ops.why import why as attribute

    body = await json_body(request)
    match gate.admit("http/why.input", body):
        case Failure(error):
            return respond.refused(error)
        case Success(admitted):
            ctx = http_context(request)
            return respond.result(await runtime(request).run(lambda store: attribute(store, admitted, ctx=ctx)))
    raise AssertionError("unreachable")  # pragma: no cover
