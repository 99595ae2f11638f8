"""The memory routes: each registered tool as POST /v1/<tool>, listings, one memory, task state, health."""

from __future__ import annotations

from urllib.parse import unquote

from starlette.requests import Request
from starlette.responses import Response

from memesh.app.registry import TASK_STATE
from memesh.errors import ErrorCode, MemeshError
from memesh.ops import entities
from memesh.transports.http import respond
from memesh.transports.http.errors import HttpFailure
from memesh.transports.http.handlers.common import endpoint, http_context, params, runtime

ENTITY_PREFIX = "/v1/entities/"


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
    return respond.result(await runtime(request).call(TASK_STATE, {"project": project}, http_context(request)))
