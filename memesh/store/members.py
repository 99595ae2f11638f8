"""Team members and the audit (issue 32), on both engines: the same SQL through the store's `?` translation.

A member's token never reaches the database: only its hash (`memesh.core.access.hash_token`). The audit is
append-only (the schema's triggers refuse any change to a written row).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from memesh.model import AuditRow, MemberRow
from memesh.store.sql import SqlBase, _dumps

_MEMBER_COLUMNS = "name, role, projects, created_at, expires_at, revoked_at, last_used_at"


def _member(row: Sequence[Any]) -> MemberRow:
    projects = json.loads(row[2]) if row[2] else None
    return MemberRow(
        name=row[0],
        role=row[1],
        projects=tuple(projects) if isinstance(projects, list) else None,
        created_at=row[3],
        expires_at=row[4],
        revoked_at=row[5],
        last_used_at=row[6],
    )


class Members(SqlBase):
    """The members table and the audit log."""

    def active_member(self, name: str) -> MemberRow | None:
        row = self.conn.execute(
            f"SELECT {_MEMBER_COLUMNS} FROM members WHERE name = ? AND revoked_at IS NULL", (name,)
        ).fetchone()
        return _member(row) if row else None

    def active_member_sealed(self, name: str) -> tuple[MemberRow, str] | None:
        """The unrevoked member called `name` and its token's hash: what a sign-in session is sealed with, so a
        session outlives neither a revocation nor the name being given to a new token."""
        row = self.conn.execute(
            f"SELECT {_MEMBER_COLUMNS}, token_hash FROM members WHERE name = ? AND revoked_at IS NULL", (name,)
        ).fetchone()
        return (_member(row), str(row[7])) if row else None

    def add_member(
        self, name: str, role: str, *, projects: Sequence[str] | None, token_hash: str, now: str, expires_at: str | None
    ) -> MemberRow:
        """Store a new member (its token as a hash); the caller checked that no unrevoked member has the name."""
        self.conn.execute(
            "INSERT INTO members (name, role, projects, token_hash, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?)",
            (name, role, None if projects is None else _dumps(list(projects)), token_hash, now, expires_at),
        )
        found = self.active_member(name)
        assert found is not None
        return found

    def members(self, *, include_revoked: bool = False) -> list[MemberRow]:
        where = "" if include_revoked else "WHERE revoked_at IS NULL"
        rows = self.conn.execute(f"SELECT {_MEMBER_COLUMNS} FROM members {where} ORDER BY name, id").fetchall()
        return [_member(row) for row in rows]

    def revoke_member(self, name: str, now: str) -> bool:
        """Revoke the unrevoked member called `name`; False when there is none."""
        cursor = self.conn.execute(
            "UPDATE members SET revoked_at = ? WHERE name = ? AND revoked_at IS NULL", (now, name)
        )
        return cursor.rowcount > 0

    def member_by_token_hash(self, token_hash: str) -> MemberRow | None:
        """The member holding this token, revoked or expired included (the caller decides what that means)."""
        row = self.conn.execute(f"SELECT {_MEMBER_COLUMNS} FROM members WHERE token_hash = ?", (token_hash,)).fetchone()
        return _member(row) if row else None

    def member_used(self, name: str, now: str, *, unless_since: str) -> None:
        """Record that the member's token was used now, unless it was already recorded since `unless_since` (one
        write a minute at most, not one per request)."""
        self.conn.execute(
            "UPDATE members SET last_used_at = ? WHERE name = ? AND revoked_at IS NULL "
            "AND (last_used_at IS NULL OR last_used_at < ?)",
            (now, name, unless_since),
        )

    def append_audit(self, at: str, actor: str, action: str, target: str | None, detail: dict[str, Any]) -> None:
        """Append one entry, every string cleaned as the store cleans what it writes."""
        from memesh.store.writes import clean_json, clean_text

        self.conn.execute(
            "INSERT INTO audit_log (at, actor, action, target, detail) VALUES (?, ?, ?, ?, ?)",
            (clean_text(at), clean_text(actor), clean_text(action), None if target is None else clean_text(target),
             _dumps(clean_json(detail))),
        )  # fmt: skip

    def audit(self, limit: int, *, actor: str | None = None) -> list[AuditRow]:
        """The newest `limit` audit rows, newest first (one actor's when given)."""
        where, params = ("WHERE actor = ?", [actor]) if actor is not None else ("", [])
        rows = self.conn.execute(
            f"SELECT id, at, actor, action, target, detail FROM audit_log {where} ORDER BY id DESC LIMIT ?",
            (*params, limit),
        ).fetchall()
        return [
            AuditRow(id=int(row[0]), at=row[1], actor=row[2], action=row[3], target=row[4], detail=_detail(row[5]))
            for row in rows
        ]


def _detail(text: str | None) -> dict[str, Any]:
    try:
        value = json.loads(text or "{}")
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}
