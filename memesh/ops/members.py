"""Team members (issue 32): add one with its own token, list them, revoke one, read the audit.

The token is made here from the call's fresh randomness, returned once, and stored only as its hash. Every member
change is appended to the audit in the same transaction as the change.
"""

from __future__ import annotations

from contextlib import AbstractContextManager
from datetime import timedelta
from typing import Any, Protocol

from returns.result import Failure, Result, Success

from memesh.context import CallContext
from memesh.core import access
from memesh.errors import MemeshError
from memesh.generated.cli.member_add_input import MemberAddInput
from memesh.generated.cli.member_add_output import MemberAddOutput
from memesh.generated.cli.member_list_input import MemberListInput
from memesh.generated.cli.member_list_output import Member, MemberListOutput
from memesh.generated.cli.member_revoke_input import MemberRevokeInput
from memesh.generated.cli.member_revoke_output import MemberRevokeOutput
from memesh.generated.http.audit_input import AuditInput
from memesh.generated.http.audit_output import AuditOutput
from memesh.model import AuditRow, MemberRow, iso_time
from memesh.schema import facts

TOKEN_PREFIX = "mm_"  # tells a member token from the owner's remote token at a glance
AUDIT_DEFAULT_LIMIT: int = facts.default("http/audit.input", "limit")


class MembersStore(Protocol):
    def transaction(self) -> AbstractContextManager[None]: ...
    def active_member(self, name: str) -> MemberRow | None: ...
    def add_member(
        self, name: str, role: str, *, projects: list[str] | None, token_hash: str, now: str, expires_at: str | None
    ) -> MemberRow: ...
    def members(self, *, include_revoked: bool = False) -> list[MemberRow]: ...
    def revoke_member(self, name: str, now: str) -> bool: ...
    def append_audit(self, at: str, actor: str, action: str, target: str | None, detail: dict[str, Any]) -> None: ...
    def audit(self, limit: int, *, actor: str | None = None) -> list[AuditRow]: ...


def actor_of(ctx: CallContext) -> str:
    """Who the audit names for this call: the caller on a remote listener, else the local author."""
    if ctx.caller is not None:
        return ctx.caller.name
    return ctx.author() or "local"


def member_add(
    store: MembersStore, request: MemberAddInput, /, *, ctx: CallContext
) -> Result[MemberAddOutput, MemeshError]:
    """The new member with its token (shown once); Failure(operation.failed) when an unrevoked member has the
    name."""
    name, role = request["name"], request["role"]
    projects = list(dict.fromkeys(request["projects"])) if "projects" in request else None
    days = request.get("expires_days")
    now = iso_time(ctx.now)
    expires = iso_time(ctx.now + timedelta(days=days)) if days is not None else None
    token = TOKEN_PREFIX + ctx.new_token() + ctx.new_token()
    with store.transaction():
        if store.active_member(name) is not None:
            return Failure(MemeshError.failed(f'A member called "{name}" exists: revoke it first', name=name))
        row = store.add_member(
            name, role, projects=projects, token_hash=access.hash_token(token), now=now, expires_at=expires
        )
        store.append_audit(
            now, actor_of(ctx), "member_add", name, {"role": role, "projects": projects, "expires_at": expires}
        )
    return Success(
        {
            "name": row.name,
            "role": role,
            "projects": None if row.projects is None else list(row.projects),
            "token": token,
            "created_at": row.created_at,
            "expires_at": row.expires_at,
        }
    )


def _shown(row: MemberRow) -> Member:
    return {
        "name": row.name,
        "role": row.role,  # type: ignore[typeddict-item]
        "projects": None if row.projects is None else list(row.projects),
        "created_at": row.created_at,
        "expires_at": row.expires_at,
        "revoked_at": row.revoked_at,
        "last_used_at": row.last_used_at,
    }


def member_list(
    store: MembersStore, request: MemberListInput, /, *, ctx: CallContext
) -> Result[MemberListOutput, MemeshError]:
    """The members by name (never a token or its hash); never fails."""
    rows = store.members(include_revoked=request.get("include_revoked", False))
    return Success({"members": [_shown(row) for row in rows]})


def member_revoke(
    store: MembersStore, request: MemberRevokeInput, /, *, ctx: CallContext
) -> Result[MemberRevokeOutput, MemeshError]:
    """`{name, revoked: true}`; Failure(resource.not-found) when no unrevoked member has the name."""
    name = request["name"]
    now = iso_time(ctx.now)
    with store.transaction():
        if not store.revoke_member(name, now):
            return Failure(MemeshError.not_found(f'No member called "{name}"', name=name))
        store.append_audit(now, actor_of(ctx), "member_revoke", name, {})
    return Success({"name": name, "revoked": True})


def audit(store: MembersStore, request: AuditInput, /, *, ctx: CallContext) -> Result[AuditOutput, MemeshError]:
    """The newest audit entries, newest first (one actor's when given); never fails."""
    rows = store.audit(request.get("limit", AUDIT_DEFAULT_LIMIT), actor=request.get("actor"))
    return Success(
        {
            "entries": [
                {
                    "id": row.id,
                    "at": row.at,
                    "actor": row.actor,
                    "action": row.action,
                    "target": row.target,
                    "detail": row.detail,  # type: ignore[typeddict-item]
                }
                for row in rows
            ]
        }
    )
