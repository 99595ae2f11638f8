"""`memesh kg` once parsed: backfill, rename-project and propose, printed for a person or as JSON."""

from __future__ import annotations

import sys
from collections.abc import Mapping
from typing import Any

from returns.result import Failure, Result, Success

from memesh.errors import MemeshError
from memesh.transports.cli.actions.memory import report, run_op
from memesh.transports.cli.exits import OK, dumps


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
    from memesh.app.operations.kg import BACKFILL_RELATIONS

    arguments: dict[str, Any] = {
        "dry_run": dry_run,
        "max_per_source": max_per_source,
        "min_shared_tags": min_shared_tags,
        "session_cooccurrence": session_cooccurrence,
        "name_tokens": name_tokens,
        "min_jaccard": min_jaccard,
        "evidence_links": evidence_links,
        "include_archived": include_archived,
        "reset_idempotency": reset_idempotency,
    }
    if project is not None:
        arguments["project"] = project
    return report(run_op(BACKFILL_RELATIONS, arguments), as_json=as_json, text=_backfilled)


def _backfilled(out: Mapping[str, Any]) -> str:
    verb = "Would create" if out["dry_run"] else "Created"
    count = out["proposed"] if out["dry_run"] else out["created"]
    lines = [f"{verb} {count} relation{'s' if count != 1 else ''}."]
    lines += [f"  {edge['from']} —{edge['type']}→ {edge['to']}  ({edge['rule']})" for edge in out["edges"][:50]]
    if len(out["edges"]) > 50:
        lines.append(f"  … and {len(out['edges']) - 50} more (--json lists them all)")
    lines.append(f"idempotency: skipped {out['idempotency']['skipped']} orphans")
    return "\n".join(lines)


def rename(old: str | None, new: str | None, *, apply: bool, as_json: bool) -> int:
    from memesh.app.operations.kg import RENAME_PROJECT

    arguments: dict[str, Any] = {"from": old, "to": new, "apply": apply or None}
    match run_op(RENAME_PROJECT, {key: value for key, value in arguments.items() if value is not None}):
        case Success(listed) if not listed.get("database", True):
            print(dumps(listed) if as_json else "No MeMesh database yet.")
            return OK
        case Success(out) if "projects" in out:
            return report(Success(out), as_json=as_json, text=_listed)
        case result:
            return report(result, as_json=as_json, text=_renamed)


def _listed(out: Mapping[str, Any]) -> str:
    if not out["projects"]:
        return "No project tags yet."
    return "\n".join(
        f"project:{row['project']}  {row['entities']} entities, {row['messages']} messages" for row in out["projects"]
    )


def _renamed(out: Mapping[str, Any]) -> str:
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
    from memesh.app.operations.kg import PROPOSE

    return report(_stdin_object().bind(lambda body: run_op(PROPOSE[kind], body)), as_json=as_json, text=_staged)


def _staged(out: Mapping[str, Any]) -> str:
    lead = "Staged" if out["created"] else "Already staged"
    lines = [f"{lead} proposal #{out['proposal_id']} ({out['kind']}, {out['status']}): {out['name']}"]
    review = out["review"]
    if review["state"] == "pending":
        lines.append(f"A person reviews it: {review['inspect']}, then {review['accept']} or {review['reject']}")
    return "\n".join(lines)
