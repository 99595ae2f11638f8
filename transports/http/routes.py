"""Every HTTP route, in one table.

`API` is the operations: `ApiRoute(path, OP, methods)`, each served by the one generic endpoint (`endpoint.py`),
which admits path, query and body together against the operation's input schema and calls the door. Each
registered tool with `http_post` is POST /v1/<tool>, so a new tool joins the API by being registered. `PAGES` are the
routes that are not operations: the dashboard page, this API's OpenAPI document and the retired paths.
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from memesh.app.operations import insight as insight_ops
from memesh.app.operations import memory as memory_ops
from memesh.app.registry import TOOLS, USER_PATTERNS
from memesh.errors import ErrorCode, MemeshError
from memesh.transports.http import respond
from memesh.transports.http.endpoint import ApiRoute, op_endpoint
from memesh.transports.http.handlers import dashboard, dream, insight, memory, session, settings
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


async def openapi(_request: Request) -> Response:
    """GET /openapi.json: the document generated from this table and the schema files (`http/openapi.py`)."""
    from memesh.transports.http.openapi import document

    return respond.json_response(200, document(API, ROUTES))


def _retired(message: str) -> Endpoint:
    async def gone(_request: Request) -> Response:
        return respond.refused(MemeshError(ErrorCode.ROUTE_RETIRED, message))

    return gone


API: list[ApiRoute] = [
    ApiRoute("/v1/health", memory_ops.HEALTH),
    ApiRoute("/v1/stats", insight_ops.STATS),
    ApiRoute("/v1/analytics", insight_ops.ANALYTICS),
    # The tool's own input schema is the query's: ?categories=workflow,strengths.
    ApiRoute("/v1/patterns", USER_PATTERNS),
    ApiRoute("/v1/projects", insight_ops.PROJECTS),
    *(ApiRoute(f"/v1/{tool.name}", tool, ("POST",)) for tool in TOOLS if tool.http_post),
]

ROUTES: list[BaseRoute] = [
    *(Route(route.path, op_endpoint(route), methods=list(route.methods)) for route in API),
    Route("/v1/entities", memory.list_entities, methods=["GET"]),
    Route("/v1/entities/{name:path}", memory.get_entity, methods=["GET"]),
    Route("/v1/task-state", memory.task_state, methods=["GET"]),
    Route("/v1/briefing-index", session.briefing_index, methods=["GET"]),
    Route("/v1/doctor", session.doctor, methods=["GET"]),
    Route("/v1/doctor/fix", session.doctor_fix, methods=["POST"]),
    Route("/v1/why", session.why, methods=["POST"]),
    Route("/v1/config", settings.get_config, methods=["GET"]),
    Route("/v1/config", settings.post_config, methods=["POST"]),
    Route("/v1/dream/proposals", dream.list_proposals, methods=["GET"]),
    Route("/v1/dream/proposals/{id}", dream.show_proposal, methods=["GET"]),
    Route("/v1/dream/proposals/{id}/accept", dream.accept_proposal, methods=["POST"]),
    Route("/v1/dream/proposals/{id}/reject", dream.reject_proposal, methods=["POST"]),
    Route("/v1/analytics/pm", insight.analytics_pm, methods=["GET"]),
    Route("/v1/update-status", insight.update_status, methods=["GET"]),
    Route("/v1/demo/seed", insight.demo_seed, methods=["POST"]),
    Route("/v1/demo/reset", insight.demo_reset, methods=["POST"]),
    Route("/dashboard", dashboard.page, methods=["GET"]),
    *(Route(path, _retired(message), methods=["POST"]) for path, message in RETIRED.items()),
    Route("/openapi.json", openapi, methods=["GET"]),
]
