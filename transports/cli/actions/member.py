"""`memesh member` once parsed: the member entries through the door, printed for a person or as JSON."""

from __future__ import annotations

import json
import sys
from typing import Any

from memesh.app.operations import members
from memesh.transports.cli.actions.memory import report, run_op
from memesh.transports.cli.terminal import one_line


def add(name: str, role: str, projects: list[str] | None, expires_days: int | None, *, as_json: bool) -> int:
    arguments: dict[str, Any] = {"name": name, "role": role}
    if projects is not None:
        arguments["projects"] = projects
    if expires_days is not None:
        arguments["expires_days"] = expires_days
    return report(run_op(members.MEMBER_ADD, arguments), as_json=as_json, text=_added)


def _added(added: Any) -> str:
    scope = ", ".join(one_line(p) for p in added["projects"]) if added["projects"] is not None else "every project"
    print(
        "This token is shown once: hand it to the member now (MeMesh keeps only its hash).",
        file=sys.stderr,
    )
    expires = f", expires {added['expires_at']}" if added["expires_at"] else ""
    return f"{added['token']}\nMember {one_line(added['name'])}: {added['role']} on {scope}{expires}."


def list_members(*, include_revoked: bool, as_json: bool) -> int:
    result = run_op(members.MEMBER_LIST, {"include_revoked": include_revoked})
    return report(result, as_json=as_json, text=_rows)


def _rows(listed: Any) -> str:
    rows = listed["members"]
    if not rows:
        return "No members. Add one with: memesh member add NAME --role reader|writer|admin"
    lines = []
    for row in rows:
        scope = ", ".join(one_line(p) for p in row["projects"]) if row["projects"] is not None else "every project"
        state = f"revoked {row['revoked_at']}" if row["revoked_at"] else f"last used {row['last_used_at'] or 'never'}"
        expires = f", expires {row['expires_at']}" if row["expires_at"] else ""
        lines.append(f"{one_line(row['name'])}  {row['role']}  {scope}  ({state}{expires})")
    return "\n".join(lines)


def revoke(name: str, *, as_json: bool) -> int:
    return report(
        run_op(members.MEMBER_REVOKE, {"name": name}),
        as_json=as_json,
        text=lambda done: f"Revoked {one_line(done['name'])}: its token stops working from the next request.",
    )


def audit(limit: int, actor: str | None, *, as_json: bool) -> int:
    arguments: dict[str, Any] = {"limit": limit}
    if actor is not None:
        arguments["actor"] = actor
    return report(run_op(members.AUDIT, arguments), as_json=as_json, text=_entries)


def _entries(found: Any) -> str:
    if not found["entries"]:
        return "The audit is empty."
    return "\n".join(
        f"{entry['at']}  {one_line(entry['actor'])}  {one_line(entry['action'])}"
        + (f"  {one_line(entry['target'])}" if entry["target"] else "")
        + (f"  {json.dumps(entry['detail'], ensure_ascii=False)}" if entry["detail"] else "")
        for entry in found["entries"]
    )
