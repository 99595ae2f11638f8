"""OAuth 2.1 grants (issue 32), on both engines: registered clients, authorization requests and their codes, access
and refresh tokens. Every credential arrives here already hashed (`memesh.core.access.hash_token`); times are Unix
seconds. The rules (lifetimes, bounds) are `memesh.core.oauth`'s, applied by `memesh.app.oauth`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from memesh.model import MemberRow, OAuthRequestRow, OAuthTokenRow
from memesh.store.members import _MEMBER_COLUMNS, _member
from memesh.store.sql import SqlBase

_REQUEST_COLUMNS = "client_id, params, nonce_hash, expires_at, member_id, owner_key, identified, code_hash, used_at"
_MEMBER_JOINED = ", ".join(f"m.{column.strip()}" for column in _MEMBER_COLUMNS.split(","))


def _request(row: Sequence[Any]) -> OAuthRequestRow:
    return OAuthRequestRow(
        client_id=row[0],
        params=row[1],
        nonce_hash=row[2],
        expires_at=int(row[3]),
        member_id=None if row[4] is None else int(row[4]),
        owner_key=row[5],
        identified=bool(row[6]),
        code_hash=row[7],
        used_at=None if row[8] is None else int(row[8]),
    )


class OAuthGrants(SqlBase):
    """The oauth_clients, oauth_requests and oauth_tokens tables (migration 17)."""

    # -- clients --------------------------------------------------------------------------------------------------

    def oauth_prune(self, now: int, *, pending_before: int) -> None:
        """Drop what can never be used again: requests past their time, tokens expired a day ago, and clients
        registered before `pending_before` that never received a token and wait on no request."""
        self.conn.execute("DELETE FROM oauth_requests WHERE expires_at < ?", (now,))
        self.conn.execute("DELETE FROM oauth_tokens WHERE expires_at < ?", (now - 24 * 60 * 60,))
        self.conn.execute(
            "DELETE FROM oauth_clients WHERE created_at < ? "
            "AND NOT EXISTS (SELECT 1 FROM oauth_tokens t WHERE t.client_id = oauth_clients.client_id) "
            "AND NOT EXISTS (SELECT 1 FROM oauth_requests r WHERE r.client_id = oauth_clients.client_id)",
            (pending_before,),
        )

    def oauth_pending_clients(self) -> int:
        """Registered clients that have never received a token."""
        row = self.conn.execute(
            "SELECT count(*) FROM oauth_clients c "
            "WHERE NOT EXISTS (SELECT 1 FROM oauth_tokens t WHERE t.client_id = c.client_id)"
        ).fetchone()
        return int(row[0])

    def oauth_add_client(self, client_id: str, metadata: str, secret_hash: str | None, now: int) -> None:
        self.conn.execute(
            "INSERT INTO oauth_clients (client_id, metadata, secret_hash, created_at) VALUES (?, ?, ?, ?)",
            (client_id, metadata, secret_hash, now),
        )

    def oauth_client(self, client_id: str) -> tuple[str, str | None] | None:
        """The client's registered metadata (JSON) and the hash of its secret (None: a public client)."""
        row = self.conn.execute(
            "SELECT metadata, secret_hash FROM oauth_clients WHERE client_id = ?", (client_id,)
        ).fetchone()
        return None if row is None else (row[0], row[1])

    # -- authorization requests and codes -------------------------------------------------------------------------

    def oauth_add_request(self, id_hash: str, client_id: str, params: str, now: int, expires_at: int) -> None:
        self.conn.execute(
            "INSERT INTO oauth_requests (id_hash, client_id, params, created_at, expires_at) VALUES (?, ?, ?, ?, ?)",
            (id_hash, client_id, params, now, expires_at),
        )

    def oauth_request(self, id_hash: str) -> OAuthRequestRow | None:
        row = self.conn.execute(
            f"SELECT {_REQUEST_COLUMNS} FROM oauth_requests WHERE id_hash = ?", (id_hash,)
        ).fetchone()
        return None if row is None else _request(row)

    def oauth_set_nonce(self, id_hash: str, nonce_hash: str) -> None:
        """The approval form's nonce for this request: the one the next POST must carry (a new page, a new one)."""
        self.conn.execute(
            "UPDATE oauth_requests SET nonce_hash = ? WHERE id_hash = ? AND code_hash IS NULL", (nonce_hash, id_hash)
        )

    def oauth_take_nonce(self, id_hash: str, nonce_hash: str) -> bool:
        """Use up the nonce: True when it was this request's current one (it is cleared, so it works once)."""
        cursor = self.conn.execute(
            "UPDATE oauth_requests SET nonce_hash = NULL WHERE id_hash = ? AND nonce_hash = ? AND code_hash IS NULL",
            (id_hash, nonce_hash),
        )
        return cursor.rowcount > 0

    def oauth_identify(self, id_hash: str, member_id: int | None, owner_key: str | None) -> None:
        """Who approves the request: a member (by id) or the owner (`owner_key`: its token's hash)."""
        self.conn.execute(
            "UPDATE oauth_requests SET member_id = ?, owner_key = ?, identified = 1 "
            "WHERE id_hash = ? AND code_hash IS NULL",
            (member_id, owner_key, id_hash),
        )

    def oauth_approve(self, id_hash: str, code_hash: str) -> bool:
        cursor = self.conn.execute(
            "UPDATE oauth_requests SET code_hash = ? WHERE id_hash = ? AND identified = 1 AND code_hash IS NULL",
            (code_hash, id_hash),
        )
        return cursor.rowcount > 0

    def oauth_drop_request(self, id_hash: str) -> None:
        self.conn.execute("DELETE FROM oauth_requests WHERE id_hash = ?", (id_hash,))

    def oauth_code(self, code_hash: str) -> tuple[str, OAuthRequestRow] | None:
        """The request a code was issued for, and that request's key (the grant its tokens belong to)."""
        row = self.conn.execute(
            f"SELECT id_hash, {_REQUEST_COLUMNS} FROM oauth_requests WHERE code_hash = ?", (code_hash,)
        ).fetchone()
        return None if row is None else (row[0], _request(row[1:]))

    def oauth_use_code(self, code_hash: str, now: int) -> bool:
        """Mark the code used; False when it already was (a second exchange of one code)."""
        cursor = self.conn.execute(
            "UPDATE oauth_requests SET used_at = ? WHERE code_hash = ? AND used_at IS NULL", (now, code_hash)
        )
        return cursor.rowcount > 0

    # -- tokens ---------------------------------------------------------------------------------------------------

    def oauth_add_token(
        self,
        token_hash: str,
        kind: str,
        *,
        client_id: str,
        grant_id: str,
        member_id: int | None,
        owner_key: str | None,
        scopes: str,
        resource: str | None,
        now: int,
        expires_at: int,
    ) -> None:
        self.conn.execute(
            "INSERT INTO oauth_tokens (token_hash, kind, client_id, grant_id, member_id, owner_key, scopes, resource, "
            "created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (token_hash, kind, client_id, grant_id, member_id, owner_key, scopes, resource, now, expires_at),
        )

    def oauth_token(self, token_hash: str) -> OAuthTokenRow | None:
        """The token, revoked or expired included, with its member's row (the caller decides what that means)."""
        row = self.conn.execute(
            "SELECT t.kind, t.client_id, t.grant_id, t.member_id, t.owner_key, t.scopes, t.resource, t.expires_at, "
            f"t.revoked_at, m.id, {_MEMBER_JOINED} FROM oauth_tokens t LEFT JOIN members m ON m.id = t.member_id "
            "WHERE t.token_hash = ?",
            (token_hash,),
        ).fetchone()
        if row is None:
            return None
        return OAuthTokenRow(
            kind=row[0],
            client_id=row[1],
            grant_id=row[2],
            member_id=None if row[3] is None else int(row[3]),
            owner_key=row[4],
            scopes=row[5],
            resource=row[6],
            expires_at=int(row[7]),
            revoked_at=None if row[8] is None else int(row[8]),
            member=None if row[9] is None else _member(row[10:]),
        )

    def oauth_revoke_token(self, token_hash: str, now: int) -> bool:
        """Revoke one token; False when it was already revoked (a rotated refresh token presented again)."""
        cursor = self.conn.execute(
            "UPDATE oauth_tokens SET revoked_at = ? WHERE token_hash = ? AND revoked_at IS NULL", (now, token_hash)
        )
        return cursor.rowcount > 0

    def oauth_revoke_grant(self, grant_id: str, now: int) -> None:
        """Revoke every token of one approval."""
        self.conn.execute(
            "UPDATE oauth_tokens SET revoked_at = ? WHERE grant_id = ? AND revoked_at IS NULL", (now, grant_id)
        )

    def member_id_by_token_hash(self, token_hash: str) -> int | None:
        """The id of the unrevoked member holding this token (expiry is the caller's to judge), or None."""
        row = self.conn.execute(
            "SELECT id FROM members WHERE token_hash = ? AND revoked_at IS NULL", (token_hash,)
        ).fetchone()
        return None if row is None else int(row[0])

    def member_by_id(self, member_id: int) -> MemberRow | None:
        """The member with this id, revoked or not."""
        row = self.conn.execute(f"SELECT {_MEMBER_COLUMNS} FROM members WHERE id = ?", (member_id,)).fetchone()
        return None if row is None else _member(row)
