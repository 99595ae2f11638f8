"""GET and POST /v1/config: the owner settings in config.json."""

from __future__ import annotations

import anyio.to_thread
from returns.result import Failure, Result, Success
from starlette.requests import Request
from starlette.responses import Response

from memesh.adapters import config_file
from memesh.app import gate
from memesh.errors import MemeshError
from memesh.generated.http.config_output import StoredConfig
from memesh.ops import settings
from memesh.transports.http import respond
from memesh.transports.http.handlers.common import endpoint, json_body


@endpoint
async def get_config(_request: Request) -> Response:
    match await anyio.to_thread.run_sync(settings.read_config, config_file):
        case Success(stored):
            return respond.ok({"config": stored})
        case Failure(error):
            return respond.refused(error)
    raise AssertionError("unreachable")  # pragma: no cover


def _update(body: object) -> Result[StoredConfig, MemeshError]:
    match gate.admit("http/config.input", body):
        case Success(update):
            return settings.update_config(config_file, update)
        case Failure() as refused:
            return refused
    raise AssertionError("unreachable")  # pragma: no cover


@endpoint
async def post_config(request: Request) -> Response:
    body = await json_body(request)
    return respond.result(await anyio.to_thread.run_sync(_update, body))
