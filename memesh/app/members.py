"""The one seam between a presented bearer token and who presents it (issue 32): the HTTP auth check calls it on
every request of a remote listener, and a later sign-in (OAuth, the dashboard) turns its own credentials into the
same `Caller`.

The owner's remote token is compared first, with no database read, so a listener with no members costs nothing
more than before. A member token is looked up by its hash on every request, so a revocation holds from the next
request on every `memesh serve` sharing the database.
"""

from __future__ import annotations

import hmac
from datetime import datetime, timedelta

from returns.result import Result, Success

from memesh.app.resources import Resources
from memesh.context import Caller
from memesh.core.access import hash_token
from memesh.errors import MemeshError
from memesh.model import iso_time

OWNER_ROLE = "admin"
LAST_USED_EVERY = timedelta(minutes=1)  # last_used_at is written at most this often per member


def owner(author: str | None) -> Caller:
    """The owner behind the remote token: an admin over everything, writing as the local author."""
    return Caller(name=author or "owner", role=OWNER_ROLE, owner=True)


def owner_caller() -> Caller:
    """The owner, named by this process's local author setting (which may ask git once: off the event loop)."""
    from memesh.adapters.author import local_author

    return owner(local_author())


def is_owner_token(presented: bytes, owner_token: str) -> bool:
    """Whether `presented` is the owner's remote token (compared in constant time; no database read)."""
    return hmac.compare_digest(presented, owner_token.encode("utf-8"))


def caller_for_token(
    resources: Resources, presented: bytes, *, owner_token: str, now: datetime
) -> Result[Caller | None, MemeshError]:
    """`member_for_token`, with a database failure as Failure(<the spec's code>), as the door answers it."""
    from memesh.app.dispatch import guarded

    return guarded(lambda: Success(member_for_token(resources, presented, owner_token=owner_token, now=now)))


def member_for_token(resources: Resources, presented: bytes, *, owner_token: str, now: datetime) -> Caller | None:
    """Who `presented` (the header's bytes) belongs to: the owner, an unrevoked unexpired member, or None.
    A database failure propagates."""
    if is_owner_token(presented, owner_token):
        return owner_caller()
    try:
        text = presented.decode("utf-8")
    except UnicodeDecodeError:
        return None
    store = resources.store
    row = store.member_by_token_hash(hash_token(text))
    at = iso_time(now)
    if row is None or row.revoked_at is not None or (row.expires_at is not None and row.expires_at <= at):
        return None
    with store.transaction():
        store.member_used(row.name, at, unless_since=iso_time(now - LAST_USED_EVERY))
    return Caller(name=row.name, role=row.role, projects=row.projects)
