"""`memesh kg` once parsed: backfill, rename-project and propose, printed for a person or as JSON."""

from __future__ import annotations

import sys
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from returns.result import Failure, Result

from memesh.core.backfill import Options
from memesh.errors import MemeshError
from memesh.ops import rename_project
from memesh.transports.cli.actions.memory import cli_context, on_store, report
from memesh.transports.cli.exits import OK, dumps, fail


def backfill(
    *,
    project: str | None,
    dry_run: bool,
    max_per_source: int,
    min_shared_tags: int,
    session_cooccurrence: bool,
    name_tokens: bool,
    min_jaccard: float,
    evidence_links: bool,
    include_archived: bool,
    reset_idempotency: bool,
    as_json: bool,
) -> int:
    from memesh.ops.backfill import backfill as run

    if max_per_source < 1 or min_shared_tags < 1 or not 0 < min_jaccard <= 1:
        message = "--max-per-source and --min-shared-tags must be at least 1, --min-jaccard in (0, 1]"
        return fail(MemeshError.bad_body(message), as_json=as_json)
    options = Options(
        project=rename_project.project_name(project) if project else None,
        max_per_source=max_per_source,
        min_shared_tags=min_shared_tags,
        session_cooccurrence=session_cooccurrence,
        name_tokens=name_tokens,
        min_jaccard=min_jaccard,
        evidence_links=evidence_links,
    )
    result = on_store(
        lambda store: run(
            store, options, dry_run=dry_run, include_archived=include_archived, reset_idempotency=reset_idempotency
        )
    )
    return report(result, as_json=as_json, text=_backfilled)


def _backfilled(out: dict[str, Any]) -> str:
    verb = "Would create" if out["dry_run"] else "Created"
    count = out["proposed"] if out["dry_run"] else out["created"]
    lines = [f"{verb} {count} relation{'s' if count != 1 else ''}."]
    lines += [f"  {edge['from']} —{edge['type']}→ {edge['to']}  ({edge['rule']})" for edge in out["edges"][:50]]
    if len(out["edges"]) > 50:
        lines.append(f"  … and {len(out['edges']) - 50} more (--json lists them all)")
    lines.append(f"idempotency: skipped {out['idempotency']['skipped']} orphans")
    return "\n".join(lines)


def rename(old: str | None, new: str | None, *, apply: bool, as_json: bool) -> int:
    problem = rename_project.arguments_problem(old, new, apply)
    if problem is not None:
        return fail(MemeshError.bad_body(problem), as_json=as_json)
    if old is None or new is None:
        listed = rename_project.list_projects()
        if not listed.value_or({}).get("database", True):
            print(dumps(listed.unwrap()) if as_json else f"{rename_project.NO_DATABASE}.")
            return OK
        return report(listed, as_json=as_json, text=_listed)
    result = rename_project.apply(old, new, datetime.now(UTC)) if apply else rename_project.preview(old, new)
    return report(result, as_json=as_json, text=_renamed)


def _listed(out: dict[str, Any]) -> str:
    if not out["projects"]:
        return "No project tags yet."
    return "\n".join(
        f"project:{row['project']}  {row['entities']} entities, {row['messages']} messages" for row in out["projects"]
    )


def _renamed(out: dict[str, Any]) -> str:
    lead = "Dry run (nothing written)" if out["dry_run"] else "Renamed"
    lines = [
        f"{lead}: project:{out['from']} → project:{out['to']}",
        f"  entities: {out['entities_renamed']} retagged, {out['entities_merged']} merged (already had the new tag)",
        f"  task state moved: {out['task_state_moved']}, proposals moved: {out['proposals_moved']}",
        f"  messages: {out['messages_moved']} moved, {out['messages_left_in_place']} left in place",
    ]
    if out["dry_run"]:
        lines.append("Run again with --apply to write it (the database is backed up first).")
    else:
        lines += [f"Backup: {out['backup']}", f"Restore (with every memesh process stopped): {out['restore']}"]
    return "\n".join(lines)


PROPOSAL_INPUT_MAX_BYTES = 256 * 1024


def _stdin_object() -> Result[dict[str, Any], MemeshError]:
    """The one JSON object on stdin; stdin is never waited on at a terminal."""
    if sys.stdin is None or sys.stdin.isatty():
        return Failure(MemeshError.bad_body("this command reads one JSON object on stdin"))
    from memesh.core.json_input import json_object

    data = sys.stdin.buffer.read(PROPOSAL_INPUT_MAX_BYTES + 1)
    return json_object(data, max_bytes=PROPOSAL_INPUT_MAX_BYTES, limit="256 KiB")


def propose(kind: str, *, as_json: bool) -> int:
    from memesh.app import gate
    from memesh.ops import stage_proposal

    operations: dict[str, Callable[..., Result[dict[str, Any], MemeshError]]] = {
        "pattern_emergent": stage_proposal.stage_pattern,
        "relation": stage_proposal.stage_relation,
        "guard": stage_proposal.stage_guard,
    }
    operation = operations[kind]
    ctx = cli_context()
    result = (
        _stdin_object()
        .bind(lambda body: gate.admit(f"proposals/{kind}.input", body))
        .bind(lambda admitted: on_store(lambda store: operation(store, admitted, ctx=ctx)))
    )
    return report(result, as_json=as_json, text=_staged)


def _staged(out: dict[str, Any]) -> str:
    lead = "Staged" if out["created"] else "Already staged"
    lines = [f"{lead} proposal #{out['proposal_id']} ({out['kind']}, {out['status']}): {out['name']}"]
    review = out["review"]
    if review["state"] == "pending":
        lines.append(f"A person reviews it: {review['inspect']}, then {review['accept']} or {review['reject']}")
    return "\n".join(lines)
