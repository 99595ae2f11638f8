"""improvement: stage a governed product-improvement proposal from active memories, or read its state."""

from __future__ import annotations

from contextlib import AbstractContextManager
from typing import Any, Protocol, cast

from returns.result import Failure, Result, Success

from memesh.context import CallContext
from memesh.core import access
from memesh.core import improvement as rules
from memesh.core.proposals import PENDING, PRODUCT_IMPROVEMENT, NewProposal, Proposal
from memesh.errors import MemeshError
from memesh.generated.tools.improvement_input import ImprovementInput
from memesh.generated.tools.improvement_output import ImprovementOutput
from memesh.model import ACTIVE, Entity


class ImprovementStore(Protocol):
    def transaction(self) -> AbstractContextManager[None]: ...
    def find(self, name: str) -> Entity | None: ...
    def proposal(self, proposal_id: int) -> Proposal | None: ...
    def proposals_in_cluster(self, project: str, cluster_key: str) -> list[Proposal]: ...
    def stage(self, proposal: NewProposal) -> int: ...


def _seen(ctx: CallContext, entity: Entity | None) -> Entity | None:
    if entity is None or ctx.caller is None:
        return entity
    provenance = entity.metadata.get("provenance")
    author = provenance.get("author") if isinstance(provenance, dict) else None
    return entity if access.may_see(ctx.caller, entity.namespace, author, entity.tags) else None


def improvement(
    store: ImprovementStore, request: ImprovementInput, *, ctx: CallContext
) -> Result[ImprovementOutput, MemeshError]:
    """propose: the staged (or already staged) proposal; Failure(operation.failed) naming source memories that are
    missing or archived. status: the proposal's state; Failure(resource.not-found) for no such improvement."""
    args = cast(dict[str, Any], request)
    if args["action"] == "status":
        found = store.proposal(args["proposal_id"])
        if found is None or found.kind != PRODUCT_IMPROVEMENT:
            return Failure(MemeshError.not_found(f"product-improvement proposal #{args['proposal_id']} not found"))
        return Success(cast(ImprovementOutput, rules.status_answer(found)))
    proposal = rules.normalize(args)
    with store.transaction():  # one at a time: two agents proposing the same thing stage one review item
        # A source the caller may not see (another member's `personal` memory) is missing for it.
        sources = {name: _seen(ctx, store.find(name)) for name in proposal.source_names}
        unavailable = [name for name, entity in sources.items() if entity is None or entity.status != ACTIVE]
        if unavailable:
            return Failure(
                MemeshError.failed(
                    f"source memories must exist and be active: {', '.join(unavailable)}", missing=unavailable
                )
            )
        source_ids = sorted(entity.id for entity in sources.values() if entity is not None)
        key = rules.cluster_key(proposal, source_ids)
        earlier = store.proposals_in_cluster(proposal.project, key)
        pending = [item for item in earlier if item.status == PENDING]
        if pending:
            return Success(cast(ImprovementOutput, rules.propose_answer(pending[0], created=False)))
        proposal_id = store.stage(
            NewProposal(
                project=proposal.project,
                cluster_key=key,
                kind=PRODUCT_IMPROVEMENT,
                source_kind="entities",
                source_ids=source_ids,
                proposed=rules.payload(proposal, key, len(earlier) + 1, ctx.source_host),
                author=ctx.author(),
            )
        )
        staged = store.proposal(proposal_id)
    assert staged is not None
    return Success(cast(ImprovementOutput, rules.propose_answer(staged, created=True)))
