"""The one generic endpoint: every operation route decodes its request the same way and calls the door.

Path parameters (percent-decoded from the path as sent, so `%2F` is part of a name), query parameters and the JSON
body go to the gate together (`gate.Parts`), against the operation's one input schema; the gate's one rule says
which refusal is `validation.bad-param` and which `validation.bad-body`. A message poll that may wait does so on the
event loop, holding no worker thread; past the process's cap of waiting polls (`waiting.WAITERS`) it is answered at
once and its connection closed.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import unquote

import anyio
from returns.result import Result
from starlette.requests import Request
from starlette.responses import Response

from memesh.app import gate, waiting
from memesh.app.registry import Op
from memesh.errors import ErrorCode, MemeshError
from memesh.records import dataclass
from memesh.transports.http import respond
from memesh.transports.http.body import Disconnected
from memesh.transports.http.errors import HttpFailure
from memesh.transports.http.handlers.common import Endpoint, endpoint, http_context, json_body, runtime

PARAMETER = re.compile(r"\{(\w+)(?::\w+)?\}")


@dataclass(frozen=True)
class ApiRoute:
    """One route of the API: its path (with `{parameters}`), the operation it calls, and its methods.

    `body_optional`: a POST whose empty body stands for `{}` (an accept, a reject without a reason, the demo).
    """

    path: str
    op: Op[Any, Any, Any]
    methods: tuple[str, ...] = ("GET",)
    body_optional: bool = False

    @property
    def path_parameters(self) -> list[str]:
        return PARAMETER.findall(self.path)


def path_parameters(request: Request, template: str) -> dict[str, list[str]]:
    """The `{name}` segments of the path as sent, each percent-decoded strictly; route.not-found when the path has
    more segments than the template (a literal `/` inside a parameter names no route)."""
    names = PARAMETER.findall(template)
    if not names:
        return {}
    raw = request.scope.get("raw_path")
    sent = raw.decode("latin-1").split("?", 1)[0] if raw else request.url.path
    expected, given = template.split("/"), sent.split("/")
    if len(expected) != len(given):
        raise HttpFailure(MemeshError(ErrorCode.ROUTE_NOT_FOUND, f"No route for {request.method} {sent}"))
    found: dict[str, list[str]] = {}
    for pattern, segment in zip(expected, given, strict=True):
        match = PARAMETER.fullmatch(pattern)
        if match is None:
            continue
        name = match.group(1)
        if not segment:
            raise HttpFailure(MemeshError(ErrorCode.ROUTE_NOT_FOUND, f"No route for {request.method} {sent}"))
        try:
            found[name] = [unquote(segment, errors="strict") if raw else segment]
        except UnicodeDecodeError as exc:
            raise HttpFailure(MemeshError(ErrorCode.BAD_PARAM, f"{name}: not valid UTF-8", {"param": name})) from exc
    return found


async def _parts(request: Request, route: ApiRoute) -> gate.Parts:
    params = path_parameters(request, route.path)
    for name, value in request.query_params.multi_items():
        if name in params:  # a path parameter cannot be given again in the query
            raise HttpFailure(MemeshError(ErrorCode.BAD_PARAM, f"{name}: must be given once", {"param": name}))
        params.setdefault(name, []).append(value)
    if request.method != "POST":
        return gate.Parts(params)
    if route.body_optional and not await request.body():
        return gate.Parts(params, {})
    return gate.Parts(params, await json_body(request))


def op_endpoint(route: ApiRoute) -> Endpoint:
    """The endpoint of `route`: decode, admit and run its operation through the door, answer in the envelope."""
    op = route.op

    @endpoint
    async def serve(request: Request) -> Response:
        parts = await _parts(request, route)
        ctx = http_context(request)
        rt = runtime(request)
        wait = waiting.wait_ms(op.name, parts.body)
        if not wait:
            return respond.result(await rt.call(op, parts, ctx))
        with waiting.WAITERS.held() as admitted:
            if admitted:
                return respond.result(await _long_poll(request, lambda: rt.call(op, parts, ctx), wait))
        # At the cap: what is there now, and the connection closed, so its descriptor is free for the rest of the API.
        response = respond.result(await rt.call(op, parts, ctx))
        response.headers["connection"] = "close"
        return response

    serve.__name__ = f"serve_{op.name.replace('.', '_')}"
    return serve


async def _long_poll(request: Request, run: Any, wait: int) -> Result[Any, MemeshError]:
    """A message poll with wait_ms: sleeps on the event loop between looks (no worker thread held while waiting),
    and stops — leaving nothing listening — when the client disconnects."""
    rt = runtime(request)
    outcome: list[Result[Any, MemeshError]] = []
    async with anyio.create_task_group() as group:

        async def until_disconnect() -> None:
            while (await request.receive())["type"] != "http.disconnect":
                pass
            group.cancel_scope.cancel()

        group.start_soon(until_disconnect)
        outcome.append(await waiting.call_waiting(run, wait, rt.high_water))
        group.cancel_scope.cancel()
    if not outcome:
        raise Disconnected
    return outcome[0]
