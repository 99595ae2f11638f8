"""Product-improvement proposals as pure decisions: the normalized proposal (whose hash makes staging idempotent),
the payload a reviewer reads, and the answers of propose and status."""

from __future__ import annotations

import re
from typing import Any

from memesh.core.clean import clean_text
from memesh.core.proposals import APPLIED, PENDING, PRODUCT_IMPROVEMENT, Proposal, sha256_of
from memesh.records import dataclass

DEFAULT_PRIORITY = "p1"
_SPACE = re.compile(r"\s+")


def normalized(text: str) -> str:
    """Runs of whitespace as one space, trimmed: spacing never makes two proposals different."""
    return _SPACE.sub(" ", text).strip()


@dataclass(frozen=True)
class Normalized:
    project: str
    source_names: list[str]
    title: str
    problem: str
    proposed_change: str
    verification_scenario: str
    success_criteria: list[str]
    priority: str


def normalize(request: dict[str, Any]) -> Normalized:
    """The request with whitespace normalized, secrets redacted, sources and criteria de-duplicated and sorted."""
    return Normalized(
        project=normalized(request["project"]),
        source_names=sorted({normalized(name) for name in request["source_names"]}),
        title=clean_text(normalized(request["title"])),
        problem=clean_text(normalized(request["problem"])),
        proposed_change=clean_text(normalized(request["proposed_change"])),
        verification_scenario=clean_text(normalized(request["verification_scenario"])),
        success_criteria=sorted({clean_text(normalized(c)) for c in request["success_criteria"]}),
        priority=request.get("priority", DEFAULT_PRIORITY),
    )


def cluster_key(proposal: Normalized, source_ids: list[int]) -> str:
    """`product-improvement:<sha256>` of everything that makes two proposals the same one: the reference's list
    (project, sources, problem, change, verification scenario, success criteria, priority). The title is a label,
    not the proposal: a retry that words it differently finds the staged one."""
    digest = sha256_of(
        {
            "project": proposal.project,
            "source_ids": source_ids,
            "problem": proposal.problem,
            "proposed_change": proposal.proposed_change,
            "verification_scenario": proposal.verification_scenario,
            "success_criteria": proposal.success_criteria,
            "priority": proposal.priority,
        }
    )
    return f"product-improvement:{digest}"


def payload(proposal: Normalized, key: str, cycle: int, source_host: str) -> dict[str, Any]:
    """What is staged for review; `cycle` counts earlier proposals with the same key (a re-proposal after a
    rejection gets its own name)."""
    base = f"product-improvement-{key.rsplit(':', 1)[1][:24]}"
    return {
        "name": base if cycle == 1 else f"{base}-r{cycle}",
        "title": proposal.title,
        "type": PRODUCT_IMPROVEMENT,
        "observations": [
            f"Problem: {proposal.problem}",
            f"Proposed change: {proposal.proposed_change}",
            f"Verification scenario: {proposal.verification_scenario}",
            *(f"Success criterion: {criterion}" for criterion in proposal.success_criteria),
            "State: pending human review; implementation and outcome are not verified.",
        ],
        "tags": [
            f"project:{proposal.project}",
            f"priority:{proposal.priority}",
            "status:proposed",
            "source:product-improvement-proposal",
        ],
        "improvement": {
            "problem": proposal.problem,
            "proposed_change": proposal.proposed_change,
            "verification_scenario": proposal.verification_scenario,
            "success_criteria": proposal.success_criteria,
            "priority": proposal.priority,
            "source_names": proposal.source_names,
            "source_host": source_host,
        },
    }


def propose_answer(proposal: Proposal, created: bool) -> dict[str, Any]:
    """propose's response, with the exact commands a person runs to review it."""
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
    return {
        "proposal_id": proposal.id,
        "status": proposal.status,
        "created": created,
        "title": str(proposal.proposed.get("title", "")),
        "source_ids": proposal.entity_source_ids,
        "review": review,
    }


def status_answer(proposal: Proposal) -> dict[str, Any]:
    improvement = proposal.proposed.get("improvement") or {}
    return {
        "proposal_id": proposal.id,
        "status": proposal.status,
        "title": str(proposal.proposed.get("title", "")),
        "project": proposal.project,
        "priority": improvement.get("priority", DEFAULT_PRIORITY),
        "source_ids": proposal.entity_source_ids,
        "reason": proposal.reason,
        "created_at": proposal.created_at,
        "reviewed_at": proposal.reviewed_at,
        "accepted_entity_name": proposal.applied_entity if proposal.status == APPLIED else None,
    }
