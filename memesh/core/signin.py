"""The dashboard's sign-in session on a remote listener (issue 32): what the cookie holds, how it is sealed and
checked, and the token a state-changing request must carry beside it. Plain values in, plain values out.

The cookie never holds a member's token. It holds who signed in (the owner, or a member's name), until when, and an
HMAC-SHA256 over those with the server's secret and the hash of the credential the person signed in with (the
member's stored token hash, or the owner token's hash). So a session ends, without any table of sessions, when:
its time is up; the member is revoked or expires (no unrevoked row by that name); the member is re-added under the
same name (a new token, a new hash: the old seal no longer matches); the owner's token is rotated; or the server's
secret is deleted. Each request checks the seal against the members table (docs/adr/0016-dashboard-sign-in.md).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac

from memesh.records import dataclass

COOKIE_NAME = "memesh_session"
# The header a state-changing request signed in by cookie must carry: a cross-site form cannot set a header, and a
# cross-site script cannot read the value (it comes only in same-origin answers).
CSRF_HEADER = "x-memesh-csrf"
SESSION_SECONDS = 12 * 60 * 60  # one working day: a browser left signed in is signed out by the next morning
OWNER = "owner"
MEMBER = "member"
_VERSION = "v1"


@dataclass(frozen=True)
class Claim:
    """What a session cookie says: `kind` (owner or member), the member's `name` ("" for the owner), and the Unix
    time it ends at. Only a claim whose seal `verified` accepts is to be believed."""

    kind: str
    name: str
    expires: int


def credential_hash(secret_text: str) -> str:
    """The SHA-256 of a credential (the owner's token), as members' tokens are kept."""
    return hashlib.sha256(secret_text.encode("utf-8")).hexdigest()


def expiry(now: int, member_expires: int | None) -> int:
    """When a session started at `now` ends: a working day later, or when the member's token expires if sooner."""
    end = now + SESSION_SECONDS
    return end if member_expires is None else min(end, member_expires)


def _mac(secret: bytes, claim: Claim, credential: str) -> str:
    message = "\n".join((_VERSION, claim.kind, claim.name, str(claim.expires), credential)).encode("utf-8")
    return hmac.new(secret, message, hashlib.sha256).hexdigest()


def _encoded(name: str) -> str:
    return base64.urlsafe_b64encode(name.encode("utf-8")).decode("ascii").rstrip("=")


def seal(secret: bytes, claim: Claim, credential: str) -> str:
    """The cookie value for `claim`: `v1.<kind>.<name, base64url>.<expires>.<mac>` (only ASCII a cookie allows)."""
    return ".".join((_VERSION, claim.kind, _encoded(claim.name), str(claim.expires), _mac(secret, claim, credential)))


def parse(value: str) -> Claim | None:
    """The claim a cookie value makes (not yet verified); None when it is not one of ours."""
    parts = value.split(".")
    if len(parts) != 5 or parts[0] != _VERSION or parts[1] not in (OWNER, MEMBER) or not parts[3].isdigit():
        return None
    if len(parts[3]) > 12 or len(parts[4]) != 64:
        return None
    try:
        name = base64.urlsafe_b64decode(parts[2] + "=" * (-len(parts[2]) % 4)).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError, ValueError):
        return None
    if (parts[1] == OWNER) != (name == ""):
        return None
    return Claim(kind=parts[1], name=name, expires=int(parts[3]))


def verified(secret: bytes, value: str, claim: Claim, credential: str, now: int) -> bool:
    """Whether `value` is the seal of `claim` with this credential, and its time is not up."""
    if claim.expires <= now:
        return False
    return hmac.compare_digest(value, seal(secret, claim, credential))


def csrf_token(secret: bytes, value: str) -> str:
    """The token that goes with one session cookie: derived from it with the server's secret, so it is known only to
    a page that was answered the session (same-origin), and changes with every sign-in."""
    return hmac.new(secret, b"csrf\n" + value.encode("utf-8"), hashlib.sha256).hexdigest()


def csrf_matches(secret: bytes, value: str, presented: str | None) -> bool:
    return presented is not None and hmac.compare_digest(presented.encode("utf-8"), csrf_token(secret, value).encode())
