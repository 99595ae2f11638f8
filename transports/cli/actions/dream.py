"""`memesh dream` once parsed: the review entries (the ones the HTTP review routes call) through the door, printed
for a person or as JSON."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from memesh.app.operations import review
from memesh.core.proposals import relation_line
from memesh.transports.cli.actions.memory import report, run_op
from memesh.transports.cli.terminal import one_line


def list_proposals(status: str, *, as_json: bool) -> int:
    result = run_op(review.PROPOSALS, {"status": status})
    return report(result, as_json=as_json, text=lambda rows: _rows(rows, status))


def _rows(rows: Sequence[Any], status: str) -> str:
    if not rows:
        return f"No {status} proposals." if status != "all" else "No proposals."
    lines = []
    for row in rows:  # one line per proposal: what the database holds is escaped so it cannot start another
        kind, source_kind = one_line(row["kind"]), one_line(row["source_kind"])
        label = kind if row["source_kind"] == "entities" else f"{kind} from a {source_kind}"
        lines.append(
            f"#{row['id']}  [{one_line(row['status'])}] {label}  {one_line(row['digest_name'])}  "
            f"({row['source_count']} source{'s' if row['source_count'] != 1 else ''}, {one_line(row['project'])}, "
            f"{one_line(row['cluster_key'])}, staged {one_line(row['created_at'])})"
        )
        if row["digest_observations_preview"]:
            lines.append(f"      {one_line(row['digest_observations_preview'])}")
    if status == "pending":
        lines.append("Review: memesh dream show <id>, then memesh dream accept <id> or memesh dream reject <id>.")
    return "\n".join(lines)


def show(proposal_id: int, *, as_json: bool) -> int:
    return report(run_op(review.PROPOSAL, {"id": proposal_id}), as_json=as_json, text=_detail)


def _detail(shown: Any) -> str:
    payload = shown["proposed_digest"]
    lines = [
        f"Proposal #{shown['id']}: {one_line(shown['kind'])} ({one_line(shown['source_kind'])}), "
        f"{one_line(shown['status'])}",
        f"Project: {one_line(shown['project'])}    Cluster: {one_line(shown['cluster_key'])}    "
        f"Staged: {one_line(shown['created_at'])}",
    ]
    if shown["reviewed_at"]:
        lines.append(
            f"Reviewed: {one_line(shown['reviewed_at'])}"
            + (f"    Reason: {one_line(shown['reason'])}" if shown["reason"] else "")
        )
    if shown["kind"] == "relation":
        lines += ["", f"Proposed relation: {relation_line(payload)}", f"Why: {payload.get('rationale')}"]
        lines.append("Accepting creates this one relation and changes nothing else.")
    elif shown["kind"] == "guard":
        guard = payload.get("guard") or {}
        lesson = payload.get("source_lesson") or {}
        lines += [
            "",
            f"Proposed guard on lesson {one_line(lesson.get('name'))} "
            f"(a warning before a matching {guard.get('tool')} command)",
            f"Pattern (case-insensitive): {guard.get('pattern')}",
            f"Warning: {guard.get('message')}",
            *(f"  matches:        {example}" for example in guard.get("should_match", [])),
            *(f"  does not match: {example}" for example in guard.get("should_not_match", [])),
        ]
        if payload.get("replaces"):
            lines.append(f"Replaces the lesson's current guard: {json.dumps(payload['replaces'], ensure_ascii=False)}")
        lines.append("Accepting writes this guard into the lesson's metadata; no memory is created.")
    else:
        lines += ["", f"Proposed memory: {one_line(payload.get('name'))} [{one_line(payload.get('type'))}]"]
        if payload.get("title"):
            lines.append(f"Title: {one_line(payload['title'])}")
        lines += [f"  - {text}" for text in payload.get("observations", [])]
        lines.append(f"Tags: {', '.join(one_line(tag) for tag in payload.get('tags', []))}")
        if shown["kind"] == "pattern_emergent":
            lines.append(
                "Accepting creates this memory and links each source to it (evidence_for); sources stay active."
            )
    sources = shown["source_ids"]
    if isinstance(sources, dict):
        coverage = sources.get("coverage") or {}
        lines += [
            "",
            f"Evidence: session {one_line(sources.get('session_id'))} "
            f"({one_line((sources.get('source') or {}).get('host'))}), "
            f"{coverage.get('included_turns')} of {coverage.get('total_turns')} visible turns"
            + (" (clipped)" if coverage.get("truncated") else ""),
        ]
        lines += [f"  {one_line(turn.get('role'))}: {turn.get('text')}" for turn in sources.get("sources", [])]
    else:
        lines += ["", f"Source memories: {', '.join(f'#{sid}' for sid in sources or [])}"]
    if payload.get("improvement"):
        lines += ["", "Improvement:", json.dumps(payload["improvement"], ensure_ascii=False, indent=2)]
    if shown["status"] == "pending":
        lines += ["", f"Accept: memesh dream accept {shown['id']}    Reject: memesh dream reject {shown['id']}"]
    return "\n".join(lines)


def accept(proposal_id: int, *, as_json: bool) -> int:
    return report(run_op(review.ACCEPT, {"id": proposal_id}), as_json=as_json, text=_accepted)


def _accepted(out: Any) -> str:
    done = {"relation": "related", "guard": "set a"}.get(out["kind"], "created")
    line = f"Accepted proposal #{out['proposalId']}: {done} {out['digestEntityName']} ({out['kind']})"
    if out["sourcesArchived"]:
        line += f"; archived {out['sourcesArchived']} source memories"
    if out["sourcesLinked"]:
        line += f"; linked {out['sourcesLinked']}"
    return line + "."


def reject(proposal_id: int, reason: str | None, *, as_json: bool) -> int:
    arguments: dict[str, Any] = {"id": proposal_id, **({"reason": reason} if reason is not None else {})}
    result = run_op(review.REJECT, arguments)
    return report(result, as_json=as_json, text=lambda out: f"Rejected proposal #{out['id']}; no memory changed.")
