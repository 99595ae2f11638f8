"""Signing a person in to the dashboard of a remote listener (issue 32), and who a session cookie stands for.

A person signs in with the token they would send as a bearer (a member's, or the owner's remote token); the answer is
a sealed cookie (`memesh.core.signin`), never the token. Every request that presents the cookie is checked against
the members table again, as a bearer is, so a revoked or expired member is signed out on its next request.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

from returns.result import Result, Success

from memesh.app.members import LAST_USED_EVERY, is_owner_token, member_for_token, owner_caller
from memesh.app.resources import Resources
from memesh.context import Caller
from memesh.core import access
from memesh.core import signin as rules
from memesh.errors import MemeshError
from memesh.model import iso_time
from memesh.records import dataclass


@dataclass(frozen=True)
class Session:
    """A signed-in person: who (`caller`), the cookie value, when it ends (Unix seconds) and its CSRF token."""

    caller: Caller
    cookie: str
    expires: int
    csrf: str


def load_secret() -> bytes:
    """The key sessions are sealed with (`<memesh dir>/session-secret`, made 0600 on first use)."""
    from memesh.adapters.session_secret import session_secret

    return session_secret()


def _unix(moment: datetime) -> int:
    return int(moment.timestamp())


def _iso_unix(text: str | None) -> int | None:
    return None if text is None else _unix(datetime.fromisoformat(text))


def _session(secret: bytes, caller: Caller, claim: rules.Claim, credential: str) -> Session:
    cookie = rules.seal(secret, claim, credential)
    return Session(caller=caller, cookie=cookie, expires=claim.expires, csrf=rules.csrf_token(secret, cookie))


def sign_in(
    resources: Resources, presented: bytes, *, owner_token: str, secret: bytes, now: datetime
) -> Result[Session | None, MemeshError]:
    """The session for the person `presented` (a token's bytes) belongs to; None when it is no one's (a revoked,
    expired or unknown token); a database failure as Failure(<the spec's code>)."""
    from memesh.app.dispatch import guarded

    def work() -> Result[Session | None, MemeshError]:
        at = _unix(now)
        if owner_token and is_owner_token(presented, owner_token):
            claim = rules.Claim(kind=rules.OWNER, name="", expires=rules.expiry(at, None))
            return Success(_session(secret, owner_caller(), claim, rules.credential_hash(owner_token)))
        caller = member_for_token(resources, presented, owner_token=owner_token, now=now)
        if caller is None:
            return Success(None)
        found = resources.store.active_member_sealed(caller.name)
        if found is None:  # revoked between the two reads
            return Success(None)
        row, token_hash = found
        claim = rules.Claim(kind=rules.MEMBER, name=row.name, expires=rules.expiry(at, _iso_unix(row.expires_at)))
        return Success(_session(secret, caller, claim, token_hash))

    return guarded(work)


def session_caller(
    resources: Resources, cookie: str, *, owner_token: str, secret: bytes, now: datetime
) -> Result[Caller | None, MemeshError]:
    """Who the session `cookie` stands for now: the owner, or a member still unrevoked and unexpired whose token is
    the one it signed in with; None for anything else (signed out); a database failure as Failure."""
    from memesh.app.dispatch import guarded

    claim = rules.parse(cookie)
    if claim is None:
        return Success(None)
    at = _unix(now)
    if claim.kind == rules.OWNER:
        if not owner_token or not rules.verified(secret, cookie, claim, rules.credential_hash(owner_token), at):
            return Success(None)
        return Success(owner_caller())

    def work() -> Result[Caller | None, MemeshError]:
        store = resources.store
        found = store.active_member_sealed(claim.name)
        if found is None:
            return Success(None)
        row, token_hash = found
        if not rules.verified(secret, cookie, claim, token_hash, at):
            return Success(None)
        if row.expires_at is not None and row.expires_at <= iso_time(now):
            return Success(None)
        with store.transaction():
            store.member_used(row.name, iso_time(now), unless_since=iso_time(now - LAST_USED_EVERY))
        return Success(Caller(name=row.name, role=row.role, projects=row.projects))

    return guarded(work)


def csrf_matches(secret: bytes, cookie: str, presented: str | None) -> bool:
    """Whether a state-changing request signed in by `cookie` carries that session's CSRF token."""
    return rules.csrf_matches(secret, cookie, presented)


def csrf_token(secret: bytes, cookie: str) -> str:
    return rules.csrf_token(secret, cookie)


def allowed(caller: Caller | None, op_names: Iterable[str]) -> list[str]:
    """Which of `op_names` the caller may run (the door's own rule, `core.access.admit`), in the order given: what
    the dashboard offers a signed-in person, so that nothing it would refuse is shown."""
    return [name for name in dict.fromkeys(op_names) if access.admit(caller, name) is None]
