"""Every HTTP route, in one table: method, path (with its parameters) and handler.

Each registered tool with `http_post` is POST /v1/<tool>, so a new tool joins the API by being registered. Query and
path parameters are admitted through the same gate as bodies, against `schemas/http/<route>.{query,path}.json`.
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from memesh.app.registry import TOOLS
from memesh.errors import ErrorCode, MemeshError
from memesh.transports.http import respond
from memesh.transports.http.handlers import dream, memory, settings
from memesh.transports.http.handlers.common import Endpoint

RETIRED = {
    "/v1/consolidate": (
        "POST /v1/consolidate is retired. It rewrote memories with an LLM summary and deleted the originals, with no "
        "review step. Use the MCP work_package tool from an already-running agent session to stage one proposal, then "
        "review it: GET /v1/dream/proposals, GET /v1/dream/proposals/:id, and POST /v1/dream/proposals/:id/accept or "
        "/reject (or memesh dream list|show|accept|reject)."
    ),
    "/v1/verify": (
        "POST /v1/verify is retired along with the agentic-orchestration experiment. It recorded a verification "
        "report for background-agent work; the protocol it served was removed without ever leaving opt-in. Run your "
        "own verification (typecheck/tests/lint) and store conclusions with POST /v1/remember if you want them "
        "remembered."
    ),
}


def _retired(message: str) -> Endpoint:
    async def gone(_request: Request) -> Response:
        return respond.refused(MemeshError(ErrorCode.ROUTE_RETIRED, message))

    return gone


ROUTES: list[BaseRoute] = [
    Route("/v1/health", memory.health, methods=["GET"]),
    Route("/v1/entities", memory.list_entities, methods=["GET"]),
    Route("/v1/entities/{name:path}", memory.get_entity, methods=["GET"]),
    Route("/v1/task-state", memory.task_state, methods=["GET"]),
    Route("/v1/config", settings.get_config, methods=["GET"]),
    Route("/v1/config", settings.post_config, methods=["POST"]),
    Route("/v1/dream/proposals", dream.list_proposals, methods=["GET"]),
    Route("/v1/dream/proposals/{id}", dream.show_proposal, methods=["GET"]),
    Route("/v1/dream/proposals/{id}/accept", dream.accept_proposal, methods=["POST"]),
    Route("/v1/dream/proposals/{id}/reject", dream.reject_proposal, methods=["POST"]),
    *(Route(f"/v1/{tool.name}", memory.tool_route(tool), methods=["POST"]) for tool in TOOLS if tool.http_post),
    *(Route(path, _retired(message), methods=["POST"]) for path, message in RETIRED.items()),
]
