"""The human review of staged proposals: list, show, accept, reject (HTTP /v1/dream/proposals, `memesh dream`).

Agents never reach these: the MCP tools can only stage. Accept applies one pending proposal in one transaction;
reject records the reason and changes no memory.
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import AbstractContextManager
from typing import Any, Protocol, cast

from returns.result import Failure, Result, Success

from memesh.context import CallContext
from memesh.core import guards
from memesh.core import proposals as rules
from memesh.core.clean import clean_text
from memesh.errors import MemeshError
from memesh.generated.http.dream_accept_input import DreamAcceptInput
from memesh.generated.http.dream_accept_output import DreamAcceptOutput
from memesh.generated.http.dream_proposal_input import DreamProposalInput
from memesh.generated.http.dream_proposal_output import DreamProposalOutput
from memesh.generated.http.dream_proposals_input import DreamProposalsInput
from memesh.generated.http.dream_proposals_output import DreamProposalsOutput
from memesh.generated.http.dream_reject_input import DreamRejectInput
from memesh.generated.http.dream_reject_output import DreamRejectOutput
from memesh.model import ARCHIVED, Entity, EntityWrite, iso_time, sqlite_time


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


def list_proposals(
    store: ReviewStore, request: DreamProposalsInput, /, *, ctx: CallContext
) -> Result[DreamProposalsOutput, MemeshError]:
    """The review queue, newest first: pending (default), applied, rejected or all; never fails."""
    status = request.get("status", "pending")
    found = store.proposals(None if status == "all" else status)
    return Success(cast(DreamProposalsOutput, [rules.summary(p) for p in found]))


def _not_found(proposal_id: int) -> Failure[MemeshError]:
    return Failure(MemeshError.not_found(f"proposal #{proposal_id} not found", id=proposal_id))


def show_proposal(
    store: ReviewStore, request: DreamProposalInput, /, *, ctx: CallContext
) -> Result[DreamProposalOutput, MemeshError]:
    """The whole proposal with its retained evidence; Failure(resource.not-found) when there is none."""
    found = store.proposal(request["id"])
    return _not_found(request["id"]) if found is None else Success(cast(DreamProposalOutput, rules.detail(found)))


def reject_proposal(
    store: ReviewStore, request: DreamRejectInput, /, *, ctx: CallContext
) -> Result[DreamRejectOutput, MemeshError]:
    """`{id, status: "rejected"}` with the reason recorded; no memory changes. Failure(resource.not-found) for no
    such proposal, Failure(operation.failed) for one already accepted or rejected."""
    proposal_id, reason = request["id"], request.get("reason")
    cleaned = (clean_text(reason).strip() or None) if reason is not None else None
    with store.transaction():
        found = store.proposal(proposal_id)
        if found is None:
            return _not_found(proposal_id)
        if not store.settle(proposal_id, rules.REJECTED, sqlite_time(ctx.now), reason=cleaned):
            return Failure(_settled(found))
    return Success({"id": proposal_id, "status": "rejected"})


def _settled(found: rules.Proposal) -> MemeshError:
    return MemeshError.failed(
        f"proposal #{found.id} is already {found.status}; only a pending proposal can be accepted or rejected",
        id=found.id,
        status=found.status,
    )


def accept_proposal(
    store: ReviewStore, request: DreamAcceptInput, /, *, ctx: CallContext
) -> Result[DreamAcceptOutput, MemeshError]:
    """`{proposalId, digestEntityName, sourcesArchived, sourcesLinked, kind}` after applying the proposal in one
    transaction. Failure(resource.not-found) for no such proposal; Failure(operation.failed) for one that is not
    pending, whose sources changed since it was staged, or that can claim none of its sources (the last two are
    marked rejected with the reason, so they do not stay in the queue), or a relation or improvement with some but
    not all of its memories gone or archived (left pending: a memory may be brought back)."""
    proposal_id = request["id"]
    with store.transaction():
        found = store.proposal(proposal_id)
        if found is None:
            return _not_found(proposal_id)
        if found.status != rules.PENDING:
            return Failure(_settled(found))
        outcome: dict[str, Any] | str | MemeshError
        if found.kind == rules.PRODUCT_IMPROVEMENT:
            outcome = _accept_improvement(store, found, ctx)
        elif found.kind == rules.RELATION:
            outcome = _accept_relation(store, found)
        elif found.kind == rules.GUARD:
            outcome = _accept_guard(store, found, ctx)
        elif rules.shown_kind(found) == rules.PATTERN_EMERGENT and isinstance(found.source_ids, list):
            outcome = _accept_pattern(store, found, ctx)
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
        written = outcome.pop("appliedEntity", outcome["digestEntityName"])
        store.settle(found.id, rules.APPLIED, sqlite_time(ctx.now), entity=written)
    return Success(cast(DreamAcceptOutput, outcome))


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


def _accept_improvement(
    store: ReviewStore, found: rules.Proposal, ctx: CallContext
) -> dict[str, Any] | str | MemeshError:
    """One team-scoped product_improvement linked to every source by learned-from; the sources stay active."""
    source_ids = found.entity_source_ids
    sources = store.entities_by_id(source_ids)
    if not source_ids:
        return f"proposal #{found.id} names no source memories"
    # Every source gone: it can claim none of them, so it is marked rejected (as a digest is). Some gone: left
    # pending, since a forgotten source remembered again makes the proposal acceptable as staged.
    named = [(sid, getattr(sources.get(sid), "name", "?")) for sid in source_ids]
    missing = _unavailable(found, named, sources)
    if missing is not None:
        return missing
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


def _changed(found: rules.Proposal, entities: list[Entity]) -> str | None:
    """The reason to refuse when any of these memories is not what the reviewer was shown, else None."""
    changed = [e.id for e in entities if found.fingerprints.get(str(e.id)) not in (None, rules.fingerprint(e))]
    if not changed:
        return None
    ids = ", ".join(f"#{source_id}" for source_id in changed)
    return f"memories changed since the proposal was staged ({ids}); stage it again to review what they say now"


def _unavailable(
    found: rules.Proposal, wanted: list[tuple[int, str]], present: dict[int, Entity]
) -> MemeshError | str | None:
    """None when every memory is there and active. When none is, the reason to mark the proposal rejected (it can
    no longer claim any of its sources, as a digest whose sources were all forgotten); when only some are gone, a
    refusal that leaves it pending (a forgotten memory remembered again makes it acceptable as staged)."""
    gone = [
        f"#{entity_id} ({name})"
        for entity_id, name in wanted
        if getattr(present.get(entity_id), "status", None) != "active"
    ]
    if not gone:
        return None
    if len(gone) == len(wanted):
        return f"its memories are gone or archived: {', '.join(gone)}"
    return MemeshError.failed(
        f"proposal #{found.id}: {', '.join(gone)} no longer exists or is archived; nothing was changed", id=found.id
    )


def _accept_relation(store: ReviewStore, found: rules.Proposal) -> dict[str, Any] | str | MemeshError:
    """One relation between the two memories, nothing else: no new memory, nothing archived (a supersedes relation
    accepted here does not archive its target, unlike one written with remember)."""
    payload = found.proposed
    ends = [payload.get("from") or {}, payload.get("to") or {}]
    if not all(isinstance(end.get("id"), int) and isinstance(end.get("name"), str) for end in ends):
        return f"proposal #{found.id} carries no readable relation"
    present = store.entities_by_id([end["id"] for end in ends])
    missing = _unavailable(found, [(end["id"], end["name"]) for end in ends], present)
    if missing is not None:
        return missing
    start, end = present[ends[0]["id"]], present[ends[1]["id"]]
    changed = _changed(found, [start, end])
    if changed is not None:
        return changed
    relation_type = str(payload.get("relation_type"))
    # Already there (someone wrote it while this was pending) is agreement, not an error.
    store.create_relation(start.name, end.name, relation_type)
    return {
        "proposalId": found.id,
        "digestEntityName": f"{start.name} —{relation_type}→ {end.name}",
        "sourcesArchived": 0,
        "sourcesLinked": 0,
        "kind": rules.RELATION,
        "appliedEntity": None,
    }


def _accept_guard(store: ReviewStore, found: rules.Proposal, ctx: CallContext) -> dict[str, Any] | str | MemeshError:
    """The lesson's own metadata.guard set to the reviewed guard (what the PreToolUse Bash hook reads); no memory
    is created."""
    payload = found.proposed
    spec = payload.get("guard") or {}
    lesson_ref = payload.get("source_lesson") or {}
    lesson_id = lesson_ref.get("id")
    if not isinstance(lesson_id, int):
        return f"proposal #{found.id} names no lesson"
    present = store.entities_by_id([lesson_id])
    missing = _unavailable(found, [(lesson_id, str(lesson_ref.get("name")))], present)
    if missing is not None:
        return missing
    lesson = present[lesson_id]
    changed = _changed(found, [lesson])
    if changed is not None:
        return changed
    if lesson.metadata.get("guard") != payload.get("replaces"):
        return f"lesson {lesson.name} got another guard since the proposal was staged; stage it again to replace it"
    pattern, message = spec.get("pattern"), spec.get("message")
    should_match, should_not_match = spec.get("should_match"), spec.get("should_not_match")
    if not (isinstance(pattern, str) and isinstance(message, str)):
        return f"proposal #{found.id} carries no readable guard"
    if not (isinstance(should_match, list) and isinstance(should_not_match, list)):
        return f"proposal #{found.id} carries no readable guard"
    # Checked again now: a guard accepted months after staging must still hold.
    problems = guards.check_spec(pattern, message, should_match, should_not_match)
    if problems:
        return f"the guard is not usable: {'; '.join(problems[:3])}"
    guard = guards.accepted_guard(
        pattern,
        message,
        should_match,
        should_not_match,
        proposal_id=found.id,
        accepted_at=iso_time(ctx.now),
        project=found.project,
    )
    store.update_metadata(lesson.id, {**lesson.metadata, "guard": guard})
    return {
        "proposalId": found.id,
        "digestEntityName": f"guard on {lesson.name}",
        "sourcesArchived": 0,
        "sourcesLinked": 0,
        "kind": rules.GUARD,
        "appliedEntity": lesson.name,
    }


def _accept_pattern(store: ReviewStore, found: rules.Proposal, ctx: CallContext) -> dict[str, Any] | str:
    """Create the pattern memory and link each source still there to it with evidence_for (relation and the
    source's metadata.evidence_for); the sources stay active."""
    sources = store.entities_by_id(found.entity_source_ids)
    review = rules.review_sources(found, sources)
    total = len(found.entity_source_ids)
    if review.changed:
        ids = ", ".join(f"#{source_id}" for source_id in review.changed)
        return f"sources changed since the proposal was staged ({ids}); stage it again to review what they say now"
    # A source another digest summarised is archived: like a forgotten one, it is no longer evidence to link.
    missing = review.missing + review.already_compacted
    if not review.claimable:
        return f"none of the {total} source memories still exist"
    name = _fresh_name(store, str(found.proposed.get("name", "pattern")), "pattern", found.id)
    linked = [entity.id for entity in review.claimable]
    pattern_id = _create(
        store,
        name=name,
        entity_type=rules.PATTERN_EMERGENT,
        observations=list(found.proposed.get("observations", [])),
        tags=_tags(found),
        metadata={
            "source_ids": linked,
            "proposal_id": found.id,
            "cluster_key": found.cluster_key,
            "project": found.project,
            "signal_score": 0.9,
            "dreamed_at": iso_time(ctx.now),
            "kind": rules.PATTERN_EMERGENT,
            **({"sources_refused": sorted(missing)} if missing else {}),
        },
        ctx=ctx,
    )
    for entity in review.claimable:
        earlier = entity.metadata.get("evidence_for")
        evidence_for = [item for item in earlier if isinstance(item, int)] if isinstance(earlier, list) else []
        store.update_metadata(entity.id, {**entity.metadata, "evidence_for": [*evidence_for, pattern_id]})
        store.create_relation(entity.name, name, "evidence_for")
    out: dict[str, Any] = {
        "proposalId": found.id,
        "digestEntityName": name,
        "sourcesArchived": 0,
        "sourcesLinked": len(linked),
        "kind": rules.PATTERN_EMERGENT,
    }
    if missing:
        out["sourcesMissing"] = len(missing)
    return out
