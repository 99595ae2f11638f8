"""OAuth 2.1 grants on a remote listener (issue 32): what the mcp SDK's authorization-server handlers and MeMesh's
approval page ask of the database, and the seam from an OAuth access token to the `Caller` behind it.

Every value a client or person presents is hashed before it reaches the store; tokens and codes are 256 random
bits. An access token is bound to the member who approved it (or the owner), and that binding is read on every
request, so a member's role, projects, expiry and revocation apply to its OAuth tokens exactly as to its own token.
Blocking calls: run them off the event loop.
"""

from __future__ import annotations

import json
import secrets
from datetime import UTC, datetime
from typing import Any

from returns.result import Result, Success

from memesh.app.members import LAST_USED_EVERY, is_owner_token, owner_caller
from memesh.app.resources import Resources
from memesh.context import Caller
from memesh.core import oauth as rules
from memesh.core.access import hash_token
from memesh.errors import MemeshError
from memesh.model import MemberRow, OAuthRequestRow, OAuthTokenRow, iso_time
from memesh.records import dataclass


@dataclass(frozen=True)
class Issued:
    """Tokens handed to a client, once (the store keeps their hashes)."""

    access_token: str
    refresh_token: str
    expires_in: int
    scope: str | None


@dataclass(frozen=True)
class Approver:
    """Who entered a token on the approval page: what the page shows before the person approves."""

    name: str
    role: str
    projects: tuple[str, ...] | None
    owner: bool


class Refused(Exception):
    """An OAuth refusal: `error` is the RFC 6749 error code, the message is for people."""

    def __init__(self, error: str, description: str) -> None:
        super().__init__(description)
        self.error = error
        self.description = description


def _new(prefix: str) -> str:
    return prefix + secrets.token_hex(32)


def _active(member: MemberRow | None, now: int) -> bool:
    if member is None or member.revoked_at is not None:
        return False
    return member.expires_at is None or member.expires_at > iso_time(datetime.fromtimestamp(now, UTC))


# -- clients ----------------------------------------------------------------------------------------------------


def register_client(
    resources: Resources, client_id: str, metadata: dict[str, Any], secret: str | None, now: int
) -> None:
    """Store a registered client (its secret as a hash), after pruning what can no longer be used; Refused when
    its metadata is out of bounds or too many clients are waiting to complete an authorization."""
    uris = [str(uri) for uri in metadata.get("redirect_uris") or []]
    texts = [str(value) for value in metadata.values() if isinstance(value, str)]
    name = metadata.get("client_name")
    if isinstance(name, str) and len(name) > rules.MAX_NAME_CHARS:
        raise Refused("invalid_client_metadata", f"client_name is longer than {rules.MAX_NAME_CHARS} characters")
    refusal = rules.registration_refusal(uris, texts)
    if refusal is not None:
        raise Refused(*refusal)
    store = resources.store
    with store.transaction():
        store.oauth_prune(now, pending_before=now - rules.PENDING_CLIENT_SECONDS)
        if store.oauth_pending_clients() >= rules.MAX_PENDING_CLIENTS:
            raise Refused("invalid_client_metadata", "too many clients are registered and unused; try again later")
        stored = {key: value for key, value in metadata.items() if key != "client_secret"}
        store.oauth_add_client(client_id, json.dumps(stored), None if secret is None else hash_token(secret), now)


def client(resources: Resources, client_id: str) -> tuple[dict[str, Any], str | None] | None:
    """A registered client's metadata and the hash of its secret (None: a public client), or None."""
    found = resources.store.oauth_client(client_id)
    if found is None:
        return None
    metadata: dict[str, Any] = json.loads(found[0])
    return metadata, found[1]


# -- the approval page ------------------------------------------------------------------------------------------


def resource_refusal(resource: str | None) -> str | None:
    """Why an RFC 8707 resource indicator names something other than this server's `/mcp`, or None (also when the
    client names none: the token is then for `/mcp` anyway, the one place it is accepted)."""
    if resource is None:
        return None
    from urllib.parse import urlsplit

    parts = urlsplit(resource)
    if parts.scheme not in ("http", "https") or parts.path.rstrip("/") != "/mcp":
        return f"{resource!r} is not this server's MCP endpoint (<server>/mcp)"
    return None


def start_request(resources: Resources, client_id: str, params: dict[str, Any], now: int) -> str:
    """Keep an authorization request the SDK has validated; the handle the approval page's URL carries."""
    handle = secrets.token_urlsafe(32)
    store = resources.store
    with store.transaction():
        store.oauth_add_request(hash_token(handle), client_id, json.dumps(params), now, now + rules.REQUEST_SECONDS)
    return handle


def pending(resources: Resources, handle: str, now: int) -> OAuthRequestRow | None:
    """The request behind a handle while it may still be approved (not expired, no code issued yet), else None."""
    row = resources.store.oauth_request(hash_token(handle))
    if row is None or row.expires_at < now or row.code_hash is not None:
        return None
    return row


def new_nonce(resources: Resources, handle: str) -> str:
    """A fresh one-time nonce for the form about to be shown for this request (the previous one stops working)."""
    nonce = secrets.token_urlsafe(32)
    store = resources.store
    with store.transaction():
        store.oauth_set_nonce(hash_token(handle), hash_token(nonce))
    return nonce


def take_nonce(resources: Resources, handle: str, nonce: str) -> bool:
    """Use up the form's nonce; False when it is not this request's current one."""
    store = resources.store
    with store.transaction():
        return store.oauth_take_nonce(hash_token(handle), hash_token(nonce))


def approver(resources: Resources, row: OAuthRequestRow, owner_token: str, now: int) -> Approver | None:
    """Who the request was identified as, while that member (or the owner's token) is still valid."""
    if row.member_id is None:
        if row.owner_key is None or row.owner_key != hash_token(owner_token):
            return None
        owner = owner_caller()
        return Approver(owner.name, owner.role, None, True)
    member = resources.store.member_by_id(row.member_id)
    if member is None or not _active(member, now):
        return None
    return Approver(member.name, member.role, member.projects, False)


def identify(resources: Resources, handle: str, presented: str, owner_token: str, now: int) -> Approver | None:
    """Bind the request to whoever `presented` belongs to (a member's token, or the owner's remote token); None
    when it is nobody's (the page counts it as a failure)."""
    store = resources.store
    if owner_token and is_owner_token(presented.encode("utf-8"), owner_token):
        member_id, owner_key = None, hash_token(owner_token)
    else:
        found = store.member_id_by_token_hash(hash_token(presented))
        if found is None:
            return None
        member_id, owner_key = found, None
    with store.transaction():
        store.oauth_identify(hash_token(handle), member_id, owner_key)
    row = store.oauth_request(hash_token(handle))
    return None if row is None else approver(resources, row, owner_token, now)


def approve(resources: Resources, handle: str, who: Approver, now: int) -> str | None:
    """Issue the request's authorization code (once), and record in the audit that `who` let its client act as
    them; None when it cannot be (not identified, already approved)."""
    code = _new(rules.CODE_PREFIX)
    store = resources.store
    with store.transaction():
        if not store.oauth_approve(hash_token(handle), hash_token(code)):
            return None
        row = store.oauth_request(hash_token(handle))
        found = None if row is None else store.oauth_client(row.client_id)
        name = json.loads(found[0]).get("client_name") if found else None
        detail = {"client_id": row.client_id if row else None, "client_name": name}
        at = iso_time(datetime.fromtimestamp(now, UTC))
        store.append_audit(at, who.name, "oauth_approve", who.name, detail)
    return code


def deny(resources: Resources, handle: str) -> None:
    store = resources.store
    with store.transaction():
        store.oauth_drop_request(hash_token(handle))


def store_failure(exc: BaseException) -> MemeshError | None:
    """The spec's error for a database failure under an OAuth call (a dropped connection, a restart, a lock not
    granted in time), with a message that names no path, host or password; None when `exc` is not the database's."""
    from memesh.store.errors import translate

    return translate(exc)


# -- the token endpoint -----------------------------------------------------------------------------------------


def load_code(resources: Resources, code: str, client_id: str) -> OAuthRequestRow | None:
    """The approved request a code was issued for, when it was issued to this client."""
    found = resources.store.oauth_code(hash_token(code))
    if found is None or found[1].client_id != client_id:
        return None
    return found[1]


def _issue(
    resources: Resources,
    *,
    client_id: str,
    grant_id: str,
    member_id: int | None,
    owner_key: str | None,
    scopes: str,
    resource: str | None,
    now: int,
) -> Issued:
    access, refresh = _new(rules.ACCESS_PREFIX), _new(rules.REFRESH_PREFIX)
    for token, kind, lifetime in (
        (access, "access", rules.ACCESS_SECONDS),
        (refresh, "refresh", rules.REFRESH_SECONDS),
    ):
        resources.store.oauth_add_token(
            hash_token(token),
            kind,
            client_id=client_id,
            grant_id=grant_id,
            member_id=member_id,
            owner_key=owner_key,
            scopes=scopes,
            resource=resource,
            now=now,
            expires_at=now + lifetime,
        )
    return Issued(access, refresh, rules.ACCESS_SECONDS, scopes or None)


def _still_valid(
    resources: Resources, member_id: int | None, owner_key: str | None, owner_token: str, now: int
) -> bool:
    if member_id is None:
        return owner_key is not None and bool(owner_token) and owner_key == hash_token(owner_token)
    return _active(resources.store.member_by_id(member_id), now)


def exchange_code(resources: Resources, code: str, client_id: str, owner_token: str, now: int) -> Issued:
    """Access and refresh tokens for a code the SDK has checked (client, expiry, redirect URI, PKCE); Refused
    (invalid_grant) when the code was already exchanged — which also revokes what that exchange issued — or its
    approver is no longer valid."""
    store = resources.store
    code_hash = hash_token(code)
    refusal: Refused | None = None
    with store.transaction():  # a refusal is raised after it commits: a reuse's revocation must hold
        found = store.oauth_code(code_hash)
        if found is None or found[1].client_id != client_id:
            raise Refused("invalid_grant", "authorization code does not exist")
        grant_id, row = found
        if not store.oauth_use_code(code_hash, now):
            store.oauth_revoke_grant(grant_id, now)  # RFC 6749 §4.1.2: a code used twice revokes its tokens
            refusal = Refused("invalid_grant", "authorization code was already used")
        elif row.expires_at < now:
            refusal = Refused("invalid_grant", "authorization code has expired")
        elif not _still_valid(resources, row.member_id, row.owner_key, owner_token, now):
            refusal = Refused("invalid_grant", "the member who approved this request is no longer valid")
        else:
            params = json.loads(row.params)
            issued = _issue(
                resources,
                client_id=client_id,
                grant_id=grant_id,
                member_id=row.member_id,
                owner_key=row.owner_key,
                scopes=" ".join(params.get("scopes") or []),
                resource=params.get("resource"),
                now=now,
            )
    if refusal is not None:
        raise refusal
    return issued


def load_token(
    resources: Resources, token: str, kind: str, *, revoked: bool = False, now: int | None = None
) -> OAuthTokenRow | None:
    """The unexpired token of this kind, unrevoked unless `revoked` (a rotated refresh token presented again must
    reach `exchange_refresh`, which revokes its grant), or None."""
    prefix = rules.ACCESS_PREFIX if kind == "access" else rules.REFRESH_PREFIX
    if not token.startswith(prefix):
        return None
    row = resources.store.oauth_token(hash_token(token))
    if now is None:
        now = int(datetime.now(UTC).timestamp())
    if row is None or row.kind != kind or (row.revoked_at is not None and not revoked) or row.expires_at < now:
        return None
    return row


def exchange_refresh(
    resources: Resources, token: str, client_id: str, scopes: list[str], *, owner_token: str, now: int
) -> Issued:
    """New access and refresh tokens for a refresh token, which is rotated (revoked with the grant's access tokens);
    Refused (invalid_grant) when it was rotated already — which revokes the whole grant, as a stolen refresh token
    would be — or its approver is no longer valid."""
    store = resources.store
    token_hash = hash_token(token)
    refusal: Refused | None = None
    with store.transaction():  # a refusal is raised after it commits: the grant's revocation must hold
        row = store.oauth_token(token_hash)
        if row is None or row.kind != "refresh" or row.client_id != client_id:
            raise Refused("invalid_grant", "refresh token does not exist")
        fresh = store.oauth_revoke_token(token_hash, now)
        store.oauth_revoke_grant(row.grant_id, now)  # rotation: the grant's access tokens end with it
        if not fresh:  # presented again after its rotation: whoever holds the new one loses it too
            refusal = Refused("invalid_grant", "refresh token was already used")
        elif row.expires_at < now:
            refusal = Refused("invalid_grant", "refresh token has expired")
        elif not _still_valid(resources, row.member_id, row.owner_key, owner_token, now):
            refusal = Refused("invalid_grant", "the member who approved this client is no longer valid")
        else:
            issued = _issue(
                resources,
                client_id=client_id,
                grant_id=row.grant_id,
                member_id=row.member_id,
                owner_key=row.owner_key,
                scopes=" ".join(scopes),
                resource=row.resource,
                now=now,
            )
    if refusal is not None:
        raise refusal
    return issued


def revoke(resources: Resources, token: str, now: int) -> None:
    """Revoke the grant a token belongs to (its access and refresh tokens together, RFC 7009 §2.1)."""
    store = resources.store
    row = store.oauth_token(hash_token(token))
    if row is not None:
        with store.transaction():
            store.oauth_revoke_grant(row.grant_id, now)


# -- the seam: an access token on /mcp ---------------------------------------------------------------------------


def is_access_token(presented: bytes) -> bool:
    return presented.startswith(rules.ACCESS_PREFIX.encode("ascii"))


def caller_for_access_token(
    resources: Resources, presented: bytes, *, owner_token: str, now: datetime
) -> Caller | None:
    """Who an OAuth access token acts for: its member while that member is unrevoked and unexpired (read on every
    request), or the owner while its remote token is the one that approved; None for anything else."""
    try:
        text = presented.decode("ascii")
    except UnicodeDecodeError:
        return None
    row = load_token(resources, text, "access", now=int(now.timestamp()))
    if row is None:
        return None
    if row.member_id is None:
        valid_owner = row.owner_key is not None and bool(owner_token) and row.owner_key == hash_token(owner_token)
        return owner_caller() if valid_owner else None
    member = row.member  # read with the token, in one statement
    if member is None or not _active(member, int(now.timestamp())):
        return None
    store = resources.store
    with store.transaction():
        store.member_used(member.name, iso_time(now), unless_since=iso_time(now - LAST_USED_EVERY))
    return Caller(name=member.name, role=member.role, projects=member.projects)


def guarded_caller(
    resources: Resources, presented: bytes, *, owner_token: str, now: datetime
) -> Result[Caller | None, MemeshError]:
    """`caller_for_access_token`, with a database failure as Failure(<the spec's code>), as the door answers it."""
    from memesh.app.dispatch import guarded

    return guarded(lambda: Success(caller_for_access_token(resources, presented, owner_token=owner_token, now=now)))
