"""The review routes: GET /v1/dream/proposals, GET /v1/dream/proposals/:id, POST …/:id/accept, POST …/:id/reject.

Human-authority actions over proposals agents staged; the dashboard's review queue calls these and nothing else.
"""

from __future__ import annotations

from typing import Any

from returns.result import Failure, Success
from starlette.requests import Request
from starlette.responses import Response

from memesh.app import gate
from memesh.ops import proposals
from memesh.transports.http import respond
from memesh.transports.http.errors import HttpFailure
from memesh.transports.http.handlers.common import endpoint, http_context, json_body, params, runtime


def _proposal_id(request: Request) -> int:
    proposal_id: int = params(request, "http/dream_proposal.path", id=request.path_params["id"])["id"]
    return proposal_id


@endpoint
async def list_proposals(request: Request) -> Response:
    status = params(request, "http/dream_proposals.query").get("status", "pending")
    return respond.result(await runtime(request).run(lambda store: proposals.list_proposals(store, status)))


@endpoint
async def show_proposal(request: Request) -> Response:
    proposal_id = _proposal_id(request)
    return respond.result(await runtime(request).run(lambda store: proposals.show_proposal(store, proposal_id)))


@endpoint
async def accept_proposal(request: Request) -> Response:
    proposal_id = _proposal_id(request)
    ctx = http_context(request)
    return respond.result(
        await runtime(request).run(lambda store: proposals.accept_proposal(store, proposal_id, ctx=ctx))
    )


@endpoint
async def reject_proposal(request: Request) -> Response:
    proposal_id = _proposal_id(request)
    # The body is optional: an empty one rejects without a reason.
    body: Any = await json_body(request) if await request.body() else {}
    match gate.admit("http/dream_reject.input", body):
        case Success(admitted):
            reason = admitted.get("reason")
        case Failure(error):
            raise HttpFailure(error)
    ctx = http_context(request)
    return respond.result(
        await runtime(request).run(lambda store: proposals.reject_proposal(store, proposal_id, reason, ctx=ctx))
    )
