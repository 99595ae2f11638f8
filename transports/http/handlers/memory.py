"""The memory routes: each registered tool as POST /v1/<tool>, listings, one memory, task state, health."""

from __future__ import annotations

from typing import Any
from urllib.parse import unquote

import anyio
from returns.result import Result
from starlette.requests import Request
from starlette.responses import Response

from memesh.app import dispatch, waiting
from memesh.app.registry import TASK_STATE, Tool
from memesh.errors import ErrorCode, MemeshError
from memesh.ops import entities
from memesh.ops.health import health as health_op
from memesh.transports.http import respond
from memesh.transports.http.body import Disconnected
from memesh.transports.http.errors import HttpFailure
from memesh.transports.http.handlers.common import Endpoint, endpoint, http_context, json_body, params, runtime

ENTITY_PREFIX = "/v1/entities/"


def tool_route(tool: Tool[Any, Any, Any]) -> Endpoint:
    """POST /v1/<tool>: the JSON body is the tool's input, the answer its output."""

    @endpoint
    async def post(request: Request) -> Response:
        body = await json_body(request)
        wait = waiting.wait_ms(tool.name, body)
        if wait:
            return respond.result(await _long_poll(request, tool, body, wait))
        return respond.result(await runtime(request).run(lambda store: dispatch.run(tool, store, body, http_context())))

    post.__name__ = f"post_{tool.name}"
    return post


async def _long_poll(request: Request, tool: Tool[Any, Any, Any], body: Any, wait: int) -> Result[Any, MemeshError]:
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
        run = lambda: rt.run(lambda store: dispatch.run(tool, store, body, http_context()))  # noqa: E731
        outcome.append(await waiting.call_waiting(run, wait, rt.high_water))
        group.cancel_scope.cancel()
    if not outcome:
        raise Disconnected
    return outcome[0]


@endpoint
async def health(request: Request) -> Response:
    return respond.result(await runtime(request).run(health_op))


@endpoint
async def list_entities(request: Request) -> Response:
    query = params(request, "http/entities.query")
    entity_type = query.get("type") or None
    limit = query.get("limit", entities.LIST_DEFAULT_LIMIT)
    return respond.result(await runtime(request).run(lambda store: entities.list_entities(store, entity_type, limit)))


def _entity_name(request: Request) -> str:
    """The `:name` of /v1/entities/:name, percent-decoded from the path as sent (so `%2F` is part of a name); a
    literal `/` in it names no route."""
    raw = request.scope.get("raw_path")
    sent = raw.decode("latin-1").split("?", 1)[0] if raw else request.url.path
    segment = sent[len(ENTITY_PREFIX) :]
    if not sent.startswith(ENTITY_PREFIX) or not segment or "/" in segment:
        raise HttpFailure(MemeshError(ErrorCode.ROUTE_NOT_FOUND, f"No route for {request.method} {sent}"))
    if not raw:  # the server decoded the path already
        return segment
    try:
        return unquote(segment, errors="strict")
    except UnicodeDecodeError as exc:
        raise HttpFailure(MemeshError(ErrorCode.BAD_PARAM, "name: not valid UTF-8", {"param": "name"})) from exc


@endpoint
async def get_entity(request: Request) -> Response:
    name = params(request, "http/entity.path", name=_entity_name(request))["name"]
    return respond.result(await runtime(request).run(lambda store: entities.get_entity(store, name)))


@endpoint
async def task_state(request: Request) -> Response:
    project = params(request, "http/task_state.query")["project"]
    return respond.result(
        await runtime(request).run(lambda store: dispatch.run(TASK_STATE, store, {"project": project}, http_context()))
    )
