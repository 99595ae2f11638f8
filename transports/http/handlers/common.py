"""What every endpoint does the same way: find the runtime, build the call's context, decode a body, catch failures."""

from __future__ import annotations

import sys
import traceback
from collections.abc import Awaitable, Callable
from functools import wraps
from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from memesh.context import CallContext
from memesh.errors import ErrorCode, MemeshError, out_of_descriptors
from memesh.transports.http import respond
from memesh.transports.http.body import Disconnected, decode_json
from memesh.transports.http.boundary import CALLER_KEY
from memesh.transports.http.errors import HttpFailure
from memesh.transports.http.runtime import Runtime

Endpoint = Callable[[Request], Awaitable[Response]]
INTERNAL = "Internal server error"
CLIENT_CLOSED = 499  # the request ended because its client went away (no one receives it)


def endpoint(handler: Endpoint) -> Endpoint:
    """`handler` answering every failure in the envelope: HttpFailure as mapped, a process out of descriptors as
    503 with Retry-After, anything else as a 500 whose details go to the server's log, never onto the wire."""

    @wraps(handler)
    async def run(request: Request) -> Response:
        try:
            return await handler(request)
        except HttpFailure as refused:
            return respond.from_failure(refused)
        except Disconnected:  # the client left (a long poll): nobody reads this answer
            return Response(status_code=CLIENT_CLOSED)
        except Exception as exc:
            if out_of_descriptors(exc):  # every descriptor taken (a storm of connections): 503, retry shortly
                return respond.refused(MemeshError.no_descriptors())
            traceback.print_exc(file=sys.stderr)
            return respond.refused(MemeshError(ErrorCode.INTERNAL, INTERNAL))

    return run


def runtime(request: Request) -> Runtime:
    found: Runtime = request.app.state.runtime
    return found


def http_context(request: Request) -> CallContext:
    """An HTTP call: stamped `http`; its answer goes to a program or the dashboard, not into an agent's context."""
    caller = request.scope.get(CALLER_KEY)  # set by the edge on a remote listener (issue 32)
    if caller is None:
        return runtime(request).resources.context("http", False)
    return runtime(request).resources.context("http", False, caller=caller)


async def json_body(request: Request) -> Any:
    """The decoded JSON body (already read within the 1 MB limit); HttpFailure(validation.bad-body) otherwise."""
    return decode_json(request.headers.get("content-type"), await request.body())
