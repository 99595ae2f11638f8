"""The human review of staged proposals: list, show, accept, reject (HTTP /v1/dream/proposals, `memesh dream`).

Agents never reach these: the MCP tools can only stage. Accept applies one pending proposal in one transaction;
reject records the reason and changes no memory.
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import AbstractContextManager
from typing import Any, Protocol

from returns.result import Failure, Result, Success

from memesh.context import CallContext
from memesh.core import proposals as rules
from memesh.core.clean import clean_text
from memesh.errors import ErrorCode, MemeshError
from memesh.model import ARCHIVED, Entity, EntityWrite, iso_time, sqlite_time

STATUS_FILTERS = ("pending", "applied", "rejected", "all")
REASON_MAX = 500


class ReviewStore(Protocol):
    def transaction(self) -> AbstractContextManager[None]: ...
    def proposal(self, proposal_id: int) -> rules.Proposal | None: ...
    def proposals(self, status: str | None) -> list[rules.Proposal]: ...
    def settle(
        self, proposal_id: int, status: str, when: str, *, reason: str | None = None, entity: str | None = None
    ) -> bool: ...
    def entities_by_id(self, ids: Sequence[int]) -> dict[int, Entity]: ...
    def entity_id(self, name: str) -> int | None: ...
    def save(self, write: EntityWrite) -> int: ...
    def create_relation(self, from_name: str, to_name: str, relation_type: str) -> bool: ...
    def update_metadata(self, entity_id: int, metadata: dict[str, Any]) -> None: ...
    def set_status(self, name: str, status: str) -> bool: ...


def list_proposals(store: ReviewStore, status: str = "pending") -> Result[list[dict[str, Any]], MemeshError]:
    """The review queue, newest first; Failure(validation.bad-param) for a status other than pending, applied,
    rejected or all."""
    if status not in STATUS_FILTERS:
        message = f"status must be one of {'|'.join(STATUS_FILTERS)}"
        return Failure(MemeshError(ErrorCode.BAD_PARAM, message, {"param": "status"}))
    return Success([rules.summary(p) for p in store.proposals(None if status == "all" else status)])


def _not_found(proposal_id: int) -> Failure[MemeshError]:
    return Failure(MemeshError.not_found(f"proposal #{proposal_id} not found", id=proposal_id))


def show_proposal(store: ReviewStore, proposal_id: int) -> Result[dict[str, Any], MemeshError]:
    """The whole proposal with its retained evidence; Failure(resource.not-found) when there is none."""
    found = store.proposal(proposal_id)
    return _not_found(proposal_id) if found is None else Success(rules.detail(found))


def reject_proposal(
    store: ReviewStore, proposal_id: int, reason: str | None, *, ctx: CallContext
) -> Result[dict[str, Any], MemeshError]:
    """`{id, status: "rejected"}`; no memory changes. Failure(resource.not-found) for no such proposal,
    Failure(operation.failed) for one already accepted or rejected."""
    cleaned = (clean_text(reason).strip() or None) if reason is not None else None
    with store.transaction():
        found = store.proposal(proposal_id)
        if found is None:
            return _not_found(proposal_id)
        if not store.settle(proposal_id, rules.REJECTED, sqlite_time(ctx.now), reason=cleaned):
            return Failure(_settled(found))
    return Success({"id": proposal_id, "status": rules.REJECTED})


def _settled(found: rules.Proposal) -> MemeshError:
    return MemeshError.failed(
        f"proposal #{found.id} is already {found.status}; only a pending proposal can be accepted or rejected",
        id=found.id,
        status=found.status,
    )


def accept_proposal(store: ReviewStore, proposal_id: int, *, ctx: CallContext) -> Result[dict[str, Any], MemeshError]:
    """`{proposalId, digestEntityName, sourcesArchived, sourcesLinked, kind}` after applying the proposal in one
    transaction. Failure(resource.not-found) for no such proposal; Failure(operation.failed) for one that is not
    pending, whose sources changed since it was staged, or that can claim none of its sources (the last two are
    marked rejected with the reason, so they do not stay in the queue)."""
    with store.transaction():
        found = store.proposal(proposal_id)
        if found is None:
            return _not_found(proposal_id)
        if found.status != rules.PENDING:
            return Failure(_settled(found))
        outcome: dict[str, Any] | str | MemeshError
        if found.kind == rules.PRODUCT_IMPROVEMENT:
            outcome = _accept_improvement(store, found, ctx)
        elif found.kind == "digest" and found.source_kind == "transcript":
            outcome = _accept_transcript(store, found, ctx)
        elif found.kind == "digest":
            outcome = _accept_digest(store, found, ctx)
        else:
            return Failure(MemeshError.failed(f"proposal #{found.id} has kind {found.kind}, which cannot be applied"))
        if isinstance(outcome, str):
            # A resolved outcome, not a failure to retry: recorded outside the rolled-back work, so it stays.
            store.settle(found.id, rules.REJECTED, sqlite_time(ctx.now), reason=outcome)
            return Failure(MemeshError.failed(f"proposal #{found.id} was not applied: {outcome}", id=found.id))
        if isinstance(outcome, MemeshError):
            return Failure(outcome)
        store.settle(found.id, rules.APPLIED, sqlite_time(ctx.now), entity=outcome["digestEntityName"])
    return Success(outcome)


def _fresh_name(store: ReviewStore, proposed: str, kind: str, proposal_id: int) -> str:
    return rules.collision_safe_name(proposed, store.entity_id(proposed) is not None, kind, proposal_id)


def _tags(found: rules.Proposal) -> tuple[str, ...]:
    # The project comes from the proposal, never from the agent's result: a `project:` tag lifted from the
    # evidence must not file the memory under another project.
    tags = [tag for tag in found.proposed.get("tags", []) if not str(tag).startswith("project:")]
    return tuple(dict.fromkeys([*tags, f"project:{found.project}"]))


def _create(
    store: ReviewStore,
    *,
    name: str,
    entity_type: str,
    observations: list[str],
    tags: tuple[str, ...],
    metadata: dict[str, Any],
    ctx: CallContext,
    title: str | None = None,
    namespace: str = "personal",
) -> int:
    provenance = {"source": "accepted-proposal", "source_host": ctx.source_host, "reviewed_at": iso_time(ctx.now)}
    return store.save(
        EntityWrite(
            entity_id=None,
            name=name,
            type=entity_type,
            title=title,
            namespace=namespace,
            status="active",
            metadata={**metadata, "provenance": provenance},
            observations=tuple(observations),
            tags=tags,
            created_at=sqlite_time(ctx.now),
        )
    )


def _accept_digest(store: ReviewStore, found: rules.Proposal, ctx: CallContext) -> dict[str, Any] | str:
    """Create the digest, link it to each source it can still claim, mark and archive those sources."""
    sources = store.entities_by_id(found.entity_source_ids)
    review = rules.review_sources(found, sources)
    total = len(found.entity_source_ids)
    if review.changed:
        ids = ", ".join(f"#{source_id}" for source_id in review.changed)
        return f"sources changed since the proposal was staged ({ids}); prepare a new package to digest them"
    if not review.claimable:
        return rules.nothing_to_claim(review, total)
    name = _fresh_name(store, str(found.proposed.get("name", "digest")), "digest", found.id)
    claimed = [entity.id for entity in review.claimable]
    digest_id = _create(
        store,
        name=name,
        entity_type=str(found.proposed.get("type", "digest")),
        observations=list(found.proposed.get("observations", [])),
        tags=_tags(found),
        metadata={
            "source_ids": claimed,
            "consolidation_depth": 1,
            "proposal_id": found.id,
            "cluster_key": found.cluster_key,
            "project": found.project,
            "signal_score": 0.85,
            "dreamed_at": iso_time(ctx.now),
            "kind": "compaction_digest",
            **({"sources_refused": review.already_compacted + review.missing} if len(claimed) < total else {}),
        },
        ctx=ctx,
    )
    for entity in review.claimable:
        store.update_metadata(entity.id, {**entity.metadata, "compacted_into": digest_id})
        store.create_relation(name, entity.name, "summarizes")
        store.create_relation(entity.name, name, "evidence_for")
        store.set_status(entity.name, ARCHIVED)
    out: dict[str, Any] = {
        "proposalId": found.id,
        "digestEntityName": name,
        "sourcesArchived": len(claimed),
        "sourcesLinked": len(claimed),
        "kind": rules.shown_kind(found),
    }
    if review.already_compacted:
        out["sourcesAlreadyCompacted"] = len(review.already_compacted)
    if review.missing:
        out["sourcesMissing"] = len(review.missing)
    return out


def _accept_transcript(store: ReviewStore, found: rules.Proposal, ctx: CallContext) -> dict[str, Any]:
    """Purely additive: one new memory; a transcript has no source memories to archive."""
    name = _fresh_name(store, str(found.proposed.get("name", "transcript")), "transcript", found.id)
    evidence = found.source_ids if isinstance(found.source_ids, dict) else {}
    _create(
        store,
        name=name,
        entity_type=str(found.proposed.get("type", "fact")),
        observations=list(found.proposed.get("observations", [])),
        tags=_tags(found),
        metadata={
            "source_kind": "transcript",
            "source": {
                "session_id": evidence.get("session_id"),
                "host": (evidence.get("source") or {}).get("host"),
                "coverage": evidence.get("coverage"),
            },
            "proposal_id": found.id,
            "cluster_key": found.cluster_key,
            "project": found.project,
            "dreamed_at": iso_time(ctx.now),
            "kind": "transcript_memory",
        },
        ctx=ctx,
    )
    return {
        "proposalId": found.id,
        "digestEntityName": name,
        "sourcesArchived": 0,
        "sourcesLinked": 0,
        "kind": "digest",
    }


def _accept_improvement(store: ReviewStore, found: rules.Proposal, ctx: CallContext) -> dict[str, Any] | MemeshError:
    """One team-scoped product_improvement linked to every source by learned-from; the sources stay active."""
    source_ids = found.entity_source_ids
    sources = store.entities_by_id(source_ids)
    unavailable = [sid for sid in source_ids if sid not in sources or sources[sid].status != "active"]
    if unavailable or not source_ids:
        listed = ", ".join(f"#{sid}" for sid in unavailable)
        # Left pending: a forgotten source remembered again makes the proposal acceptable as staged.
        return MemeshError.failed(f"proposal #{found.id}: source memories are missing or archived: {listed}")
    payload = found.proposed
    improvement = payload.get("improvement") or {}
    name = _fresh_name(store, str(payload.get("name", "product-improvement")), "improvement", found.id)
    observations = [
        *(text for text in payload.get("observations", []) if not str(text).startswith("State:")),
        "State: accepted for product work; implementation and outcome are not verified.",
    ]
    tags = tuple(
        dict.fromkeys(
            [
                *(t for t in payload.get("tags", []) if not str(t).startswith(("project:", "status:"))),
                f"project:{found.project}",
                "status:accepted-for-product",
                "implementation:unverified",
                "outcome:unverified",
            ]
        )
    )
    _create(
        store,
        name=name,
        entity_type=rules.PRODUCT_IMPROVEMENT,
        title=str(payload.get("title") or "") or None,
        namespace="team",
        observations=observations,
        tags=tags,
        metadata={
            "kind": rules.PRODUCT_IMPROVEMENT,
            "proposal_id": found.id,
            "source_ids": source_ids,
            "project": found.project,
            "priority": improvement.get("priority", "p1"),
            "verification_scenario": improvement.get("verification_scenario"),
            "success_criteria": improvement.get("success_criteria", []),
            "implementation_state": "unverified",
            "outcome_state": "unverified",
            "accepted_at": iso_time(ctx.now),
            "signal_score": 1,
        },
        ctx=ctx,
    )
    for sid in source_ids:
        store.create_relation(name, sources[sid].name, "learned-from")
    return {
        "proposalId": found.id,
        "digestEntityName": name,
        "sourcesArchived": 0,
        "sourcesLinked": len(source_ids),
        "kind": rules.PRODUCT_IMPROVEMENT,
    }
