"""Entries of the human review of staged proposals: the queue, one proposal, accept, reject (GET/POST
/v1/dream/proposals…, `memesh dream`). Agents never reach these: the MCP tools can only stage."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from memesh.app.registry import Op, Operation
from memesh.app.resources import Store, the_store
from memesh.errors import ErrorCode

if TYPE_CHECKING:
    from memesh.generated.http.dream_accept_input import DreamAcceptInput
    from memesh.generated.http.dream_accept_output import DreamAcceptOutput
    from memesh.generated.http.dream_proposal_input import DreamProposalInput
    from memesh.generated.http.dream_proposal_output import DreamProposalOutput
    from memesh.generated.http.dream_proposals_input import DreamProposalsInput
    from memesh.generated.http.dream_proposals_output import DreamProposalsOutput
    from memesh.generated.http.dream_reject_input import DreamRejectInput
    from memesh.generated.http.dream_reject_output import DreamRejectOutput


def _proposals() -> Operation[Store, DreamProposalsInput, DreamProposalsOutput]:
    from memesh.ops.proposals import list_proposals

    return list_proposals


def _proposal() -> Operation[Store, DreamProposalInput, DreamProposalOutput]:
    from memesh.ops.proposals import show_proposal

    return show_proposal


def _accept() -> Operation[Store, DreamAcceptInput, DreamAcceptOutput]:
    from memesh.ops.proposals import accept_proposal

    return accept_proposal


def _reject() -> Operation[Store, DreamRejectInput, DreamRejectOutput]:
    from memesh.ops.proposals import reject_proposal

    return reject_proposal


PROPOSALS = Op(
    name="dream_proposals",
    input_schema="http/dream_proposals.input",
    output_schema="http/dream_proposals.output",
    load=_proposals,
    uses=the_store,
    summary="The staged proposals for human review, newest first",
)
PROPOSAL = Op(
    name="dream_proposal",
    input_schema="http/dream_proposal.input",
    output_schema="http/dream_proposal.output",
    load=_proposal,
    uses=the_store,
    summary="One proposal and its retained evidence",
    errors=(ErrorCode.NOT_FOUND,),
)
ACCEPT = Op(
    name="dream_accept",
    input_schema="http/dream_accept.input",
    output_schema="http/dream_accept.output",
    load=_accept,
    uses=the_store,
    summary="Accept and apply one pending proposal",
    errors=(ErrorCode.NOT_FOUND, ErrorCode.OPERATION_FAILED),
)
REJECT = Op(
    name="dream_reject",
    input_schema="http/dream_reject.input",
    output_schema="http/dream_reject.output",
    load=_reject,
    uses=the_store,
    summary="Reject one pending proposal; no memory changes",
    errors=(ErrorCode.NOT_FOUND, ErrorCode.OPERATION_FAILED),
)

OPS: tuple[Op[Any, Any, Any], ...] = (PROPOSALS, PROPOSAL, ACCEPT, REJECT)
