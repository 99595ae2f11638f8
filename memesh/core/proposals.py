"""Proposals: curation an agent (or a deterministic rule) staged and a person accepts or rejects.

The values and the pure decisions about them: how a stored proposal is summarised for the review queue and shown
in full, how a digest's sources are judged at accept time, and what the accepted memory looks like. The store keeps
the rows (`dream_proposals`); `memesh.ops.proposals` runs the review actions in one transaction each.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import field
from typing import Any, Final, Literal

from memesh.model import ACTIVE, Entity
from memesh.records import dataclass

PENDING: Final = "pending"
APPLIED: Final = "applied"
REJECTED: Final = "rejected"
PRODUCT_IMPROVEMENT: Final = "product_improvement"
PATTERN_EMERGENT: Final = "pattern_emergent"
RELATION: Final = "relation"
GUARD: Final = "guard"
PREVIEW_CHARS = 120
# Markers an accepted additive proposal writes onto a source memory (a pattern's evidence link, a lesson's guard).
# They do not change what a reviewer of another proposal over the same memory was shown, so they are left out of
# its fingerprint: accepting a pattern must not make a pending digest over the same evidence look changed.
REVIEW_MARKERS: Final = frozenset({"evidence_for", "guard"})

Kind = Literal["digest", "pattern_emergent", "relation", "guard", "product_improvement"]


@dataclass(frozen=True)
class Proposal:
    """One stored proposal, its JSON columns decoded."""

    id: int
    project: str
    cluster_key: str
    kind: str
    source_kind: str
    source_ids: Any  # an id list, or a transcript's retained evidence object
    proposed: dict[str, Any]
    package_id: str | None
    fingerprints: dict[str, str]
    status: str
    reason: str | None
    created_at: str
    reviewed_at: str | None
    applied_entity: str | None

    @property
    def entity_source_ids(self) -> list[int]:
        """The source memory ids, or [] when the sources are not memories (a transcript)."""
        if not isinstance(self.source_ids, list):
            return []
        return [item for item in self.source_ids if isinstance(item, int) and not isinstance(item, bool)]


@dataclass(frozen=True)
class NewProposal:
    """A proposal about to be staged."""

    project: str
    cluster_key: str
    kind: str
    source_kind: str
    source_ids: Any
    proposed: dict[str, Any]
    package_id: str | None = None
    fingerprints: dict[str, str] = field(default_factory=dict)
    author: str | None = None  # who staged it (issue 32): the member, else the local author


def canonical_json(value: Any) -> str:
    """The one serialisation hashes are taken over: sorted keys, no spaces, non-ASCII kept."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def sha256_of(value: Any) -> str:
    return hashlib.sha256(canonical_json(value).encode("utf-8", "surrogatepass")).hexdigest()


def encoded_size(value: Any) -> int:
    """Bytes of `value` as JSON in UTF-8: what the package and result caps measure."""
    return len(json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8", "surrogatepass"))


def fingerprint(entity: Entity) -> str:
    """What a source memory said and how it was scoped when staged; any change of content or marker changes it."""
    return sha256_of(
        {
            "id": entity.id,
            "name": entity.name,
            "type": entity.type,
            "title": entity.title,
            "namespace": entity.namespace,
            "created_at": entity.created_at,
            "metadata": {key: value for key, value in entity.metadata.items() if key not in REVIEW_MARKERS},
            "observations": entity.observations,
            "tags": sorted(entity.tags),
        }
    )


def shown_kind(proposal: Proposal) -> str:
    """The review kind: the row's kind column, with a digest payload typed pattern_emergent shown as one."""
    if proposal.kind == "digest" and proposal.proposed.get("type") == PATTERN_EMERGENT:
        return PATTERN_EMERGENT
    return proposal.kind


def relation_line(payload: dict[str, Any]) -> str:
    """`a —type→ b`, the relation a relation proposal creates, in the direction it creates it."""
    ends = [(payload.get(end) or {}).get("name") for end in ("from", "to")]
    if not all(isinstance(name, str) for name in ends):
        return "(unreadable relation proposal)"
    return f"{ends[0]} —{payload.get('relation_type', '?')}→ {ends[1]}"


def guard_line(payload: dict[str, Any]) -> str:
    """`guard (Bash) on <lesson>`: what a guard proposal patches."""
    lesson = payload.get("source_lesson") or {}
    shown = lesson.get("title") or lesson.get("name")
    return f"guard ({(payload.get('guard') or {}).get('tool', '?')}) on {shown}" if shown else "(unreadable guard)"


def _name_and_preview(proposal: Proposal) -> tuple[str, Any]:
    payload = proposal.proposed
    if proposal.kind == RELATION:
        return relation_line(payload), payload.get("rationale")
    if proposal.kind == GUARD:
        return guard_line(payload), (payload.get("guard") or {}).get("message")
    observations = payload.get("observations")
    first = observations[0] if isinstance(observations, list) and observations else None
    name = payload.get("title") if proposal.kind == PRODUCT_IMPROVEMENT else None
    return str(name or payload.get("name") or ""), first


def source_count(proposal: Proposal) -> int:
    if isinstance(proposal.source_ids, list):
        return len(proposal.source_ids)
    return 1 if isinstance(proposal.source_ids, dict) else 0


def summary(proposal: Proposal) -> dict[str, Any]:
    """One line of the review queue (GET /v1/dream/proposals, `memesh dream list`)."""
    name, first = _name_and_preview(proposal)
    return {
        "id": proposal.id,
        "project": proposal.project,
        "cluster_key": proposal.cluster_key,
        "source_count": source_count(proposal),
        "digest_name": name,
        "digest_observations_preview": str(first)[:PREVIEW_CHARS] if first is not None else None,
        "status": proposal.status,
        "created_at": proposal.created_at,
        "kind": shown_kind(proposal),
        "source_kind": proposal.source_kind,
    }


def detail(proposal: Proposal) -> dict[str, Any]:
    """The whole proposal as a reviewer reads it before deciding (GET /v1/dream/proposals/:id)."""
    return {
        "id": proposal.id,
        "project": proposal.project,
        "cluster_key": proposal.cluster_key,
        "source_ids": proposal.source_ids,
        "proposed_digest": proposal.proposed,
        "status": proposal.status,
        "reason": proposal.reason,
        "created_at": proposal.created_at,
        "reviewed_at": proposal.reviewed_at,
        "kind": shown_kind(proposal),
        "source_kind": proposal.source_kind,
    }


@dataclass(frozen=True)
class SourceReview:
    """Each staged source memory judged at accept time."""

    claimable: list[Entity]
    missing: list[int]  # gone, or archived (forgotten) since staging
    already_compacted: list[int]  # another digest summarised it first
    changed: list[int]  # still there, but not what the reviewer was shown


def review_sources(proposal: Proposal, found: dict[int, Entity]) -> SourceReview:
    """Sort a digest's sources into those it can still claim and why the others cannot be."""
    review = SourceReview([], [], [], [])
    for source_id in proposal.entity_source_ids:
        entity = found.get(source_id)
        if entity is None or entity.status != ACTIVE:
            review.missing.append(source_id)
        elif entity.metadata.get("compacted_into") is not None:
            review.already_compacted.append(source_id)
        elif proposal.fingerprints.get(str(source_id)) not in (None, fingerprint(entity)):
            review.changed.append(source_id)
        else:
            review.claimable.append(entity)
    return review


def nothing_to_claim(review: SourceReview, total: int) -> str:
    """The reason stored on a digest proposal whose sources are all gone or all summarised elsewhere."""
    compacted, missing = len(review.already_compacted), len(review.missing)
    if compacted == 0:
        return f"none of the {total} source memories still exist"
    if missing == 0:
        return f"all {total} source memories were already summarised by another digest"
    return (
        f"of {total} source memories, {compacted} were already summarised by another digest and {missing} no "
        "longer exist"
    )


def collision_safe_name(proposed: str, taken: bool, kind: str, proposal_id: int) -> str:
    """A fresh name for the accepted memory: a proposal never merges into a memory someone else wrote."""
    return f"{proposed} ({kind} #{proposal_id})" if taken else proposed


def review_block(proposal: Proposal) -> dict[str, Any]:
    """The exact commands a person runs to review a staged proposal (an agent never applies or rejects)."""
    pending = proposal.status == PENDING
    review: dict[str, Any] = {
        "required": True,
        "authority": "human",
        "state": "pending" if pending else "settled",
        "inspect": f"memesh dream show {proposal.id}",
    }
    if pending:
        review["accept"] = f"memesh dream accept {proposal.id}"
        review["reject"] = f"memesh dream reject {proposal.id} --reason <text>"
    return review


def staged_answer(proposal: Proposal, *, created: bool) -> dict[str, Any]:
    """What staging a pattern, relation or guard proposal answers: the proposal and how to review it."""
    name, _ = _name_and_preview(proposal)
    return {
        "proposal_id": proposal.id,
        "kind": shown_kind(proposal),
        "status": proposal.status,
        "created": created,
        "name": name,
        "source_ids": proposal.entity_source_ids,
        "review": review_block(proposal),
    }
