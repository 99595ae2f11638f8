"""Every HTTP route, in two tables.

`API` is the operations: `ApiRoute(path, OP, methods)`, each served by the one generic endpoint (`endpoint.py`),
which admits path, query and body together against the operation's input schema and calls the door. Each
registered tool with `http_post` is POST /v1/<tool>, so a new tool joins the API by being registered. `PAGES` are the
routes that are not operations — the dashboard page, this API's OpenAPI document and the retired paths — each with
what /openapi.json says of it. `openapi.py` reads these two tables and nothing else.
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import BaseRoute, Route

from memesh.app.operations import insight, members, memory, review, session, settings
from memesh.app.registry import TOOLS, USER_PATTERNS
from memesh.errors import ErrorCode, MemeshError
from memesh.records import dataclass
from memesh.transports.http import respond, signin
from memesh.transports.http.endpoint import ApiRoute, op_endpoint
from memesh.transports.http.handlers import dashboard
from memesh.transports.http.handlers.common import Endpoint

API: list[ApiRoute] = [
    ApiRoute("/v1/health", memory.HEALTH),
    ApiRoute("/v1/audit", members.AUDIT),  # admins only (memesh.core.access)
    ApiRoute("/v1/entities", memory.ENTITIES),
    # `:path` so Starlette hands over a name with %2F in it; the endpoint reads the name from the path as sent, where
    # a literal `/` makes one segment too many (route.not-found).
    ApiRoute("/v1/entities/{name:path}", memory.ENTITY),
    # The same memory by ?name=: a browser (and curl) resolves the segments `.` and `..` — `%2E` too — before it
    # sends a path, so the memories named `.` and `..` can only be asked for in the query (the dashboard's way).
    ApiRoute("/v1/entity", memory.ENTITY),
    ApiRoute("/v1/graph", memory.GRAPH),
    ApiRoute("/v1/task-state", memory.TASK_STATE_READ),
    ApiRoute("/v1/briefing-index", session.BRIEFING_INDEX),
    ApiRoute("/v1/doctor", session.DOCTOR),
    ApiRoute("/v1/doctor/fix", session.DOCTOR_FIX, ("POST",)),
    ApiRoute("/v1/why", session.WHY, ("POST",)),
    ApiRoute("/v1/config", settings.CONFIG),
    ApiRoute("/v1/config", settings.CONFIG_UPDATE, ("POST",)),
    ApiRoute("/v1/stats", insight.STATS),
    ApiRoute("/v1/analytics", insight.ANALYTICS),
    ApiRoute("/v1/analytics/pm", insight.ANALYTICS_PM),
    # The tool's own input schema is the query's: ?categories=workflow,strengths.
    ApiRoute("/v1/patterns", USER_PATTERNS),
    ApiRoute("/v1/projects", insight.PROJECTS),
    ApiRoute("/v1/update-status", insight.UPDATE_STATUS),
    ApiRoute("/v1/dream/proposals", review.PROPOSALS),
    ApiRoute("/v1/dream/proposals/{id}", review.PROPOSAL),
    ApiRoute("/v1/dream/proposals/{id}/accept", review.ACCEPT, ("POST",), body_optional=True),
    ApiRoute("/v1/dream/proposals/{id}/reject", review.REJECT, ("POST",), body_optional=True),
    ApiRoute("/v1/demo/seed", insight.DEMO_SEED, ("POST",), body_optional=True),
    ApiRoute("/v1/demo/reset", insight.DEMO_RESET, ("POST",), body_optional=True),
    *(ApiRoute(f"/v1/{tool.name}", tool, ("POST",)) for tool in TOOLS if tool.http_post),
]


@dataclass(frozen=True)
class Page:
    """A route that is not an operation: its endpoint, and what /openapi.json says of it — a summary, the codes it
    may answer beyond every route's, and the schema file of its 200 answer (`answer`, in `media_type`; None: it has
    no success answer; `redirect`: it answers 307 to that path instead). A page's answer is not the envelope: the
    page is what it serves."""

    path: str
    endpoint: Endpoint
    methods: tuple[str, ...]
    summary: str
    answer: str | None
    media_type: str = "application/json"
    errors: tuple[ErrorCode, ...] = ()
    redirect: str | None = None  # the path a 307 answer points to (a page that only sends the browser on)
    body: str | None = None  # the schema file of its JSON body (a POST), checked by the gate
    enveloped: bool = False  # its answer is the API's envelope, `{success: true, data: <answer>}`


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
    """GET /openapi.json: the document generated from the two tables and the schema files (`http/openapi.py`)."""
    from memesh.transports.http.openapi import document

    return respond.json_response(200, document(API, PAGES))


async def home(_request: Request) -> Response:
    """GET /: the dashboard's one address, where a person typing the server's address lands."""
    return RedirectResponse("/dashboard", status_code=307)


def _retired(message: str) -> Endpoint:
    async def gone(_request: Request) -> Response:
        return respond.refused(MemeshError(ErrorCode.ROUTE_RETIRED, message))

    return gone


PAGES: list[Page] = [
    # A redirect, not the page again: the dashboard keeps one address (the one `memesh serve` prints), and the
    # relative Location works under whatever host and port the browser used.
    Page("/", home, ("GET",), "Sends a browser on to the dashboard", None, redirect="/dashboard"),
    Page(
        "/dashboard",
        dashboard.page,
        ("GET",),
        "The dashboard: one self-contained HTML page",
        "http/dashboard.output",
        media_type="text/html",
    ),
    # The dashboard's sign-in on a remote listener (issue 32): who is signed in, sign in with a token, sign out.
    Page(
        signin.SESSION_PATH,
        signin.session,
        ("GET",),
        "Whether this listener asks the dashboard to sign in, and who is signed in",
        "http/session.output",
        errors=(ErrorCode.BAD_PARAM,),
        enveloped=True,
    ),
    Page(
        signin.SIGN_IN_PATH,
        signin.sign_in_page,
        ("POST",),
        "Sign in to the dashboard of a remote listener with a token: answers a session cookie",
        "http/session.output",
        errors=(ErrorCode.BAD_PARAM, ErrorCode.BAD_BODY),
        body="http/sign_in.input",
        enveloped=True,
    ),
    Page(
        signin.SIGN_OUT_PATH,
        signin.sign_out_page,
        ("POST",),
        "Sign out of the dashboard: the session cookie is removed",
        "http/session.output",
        errors=(ErrorCode.BAD_PARAM,),
        enveloped=True,
    ),
    *(
        Page(
            path,
            _retired(message),
            ("POST",),
            "Retired: answers 410 with a pointer to what replaced it",
            None,
            errors=(ErrorCode.ROUTE_RETIRED,),
        )
        for path, message in RETIRED.items()
    ),
    Page("/openapi.json", openapi, ("GET",), "This document", "http/openapi.output"),
]

ROUTES: list[BaseRoute] = [
    *(Route(route.path, op_endpoint(route), methods=list(route.methods)) for route in API),
    *(Route(page.path, page.endpoint, methods=list(page.methods)) for page in PAGES),
]
