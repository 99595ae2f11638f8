"""OAuth 2.1 for `/mcp` on a remote listener (issue 32): the rules, as plain values.

Lifetimes, which redirect URIs a client may register, the bounds of a registration, and the backoff of the approval
page after wrong tokens. The protocol itself (metadata, registration, /authorize, /token, /revoke) is the mcp SDK's
(`mcp.server.auth`); the store keeps every credential only as its hash. docs/adr/0013-oauth-for-remote-mcp.md.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Sequence
from urllib.parse import urlsplit

from memesh.records import dataclass

ACCESS_SECONDS = 60 * 60  # an access token lives an hour: a revoked member is out by the next request anyway
REFRESH_SECONDS = 30 * 24 * 60 * 60  # a refresh token, 30 days from its issue (each refresh rotates it)
REQUEST_SECONDS = 10 * 60  # an authorization request, from /authorize to its code's exchange: 10 minutes at most

# Prefixes tell the edge which table a presented bearer belongs to, so a member token costs no OAuth lookup.
ACCESS_PREFIX = "mmoa_"
REFRESH_PREFIX = "mmor_"
CODE_PREFIX = "mmoc_"

# Registration is open (RFC 7591: anyone may register), so it is bounded: the body, the metadata's lists and texts,
# and the clients that never completed an authorization (pruned after a day; at most MAX_PENDING_CLIENTS).
REGISTRATION_BODY_BYTES = 16 * 1024
MAX_REDIRECT_URIS = 10
MAX_URI_CHARS = 2000
MAX_NAME_CHARS = 200
MAX_PENDING_CLIENTS = 1000
PENDING_CLIENT_SECONDS = 24 * 60 * 60

# The approval page: after FAILURES_ALLOWED wrong tokens from one address within FAILURE_WINDOW seconds, that address
# waits, twice as long after each further failure, up to MAX_WAIT seconds.
FAILURES_ALLOWED = 5
FAILURE_WINDOW = 15 * 60
FIRST_WAIT = 30
MAX_WAIT = 15 * 60

# Schemes a redirect may never use: they run or read in the browser instead of handing the code to an app.
UNSAFE_SCHEMES = frozenset({"javascript", "data", "file", "vbscript", "about", "blob", "filesystem", "ws", "wss"})


def is_loopback_host(host: str) -> bool:
    """localhost or a loopback address (brackets allowed): where plain http is allowed (RFC 8252 §7.3)."""
    name = host.strip().lower().strip("[]")
    if name == "localhost":
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def redirect_uri_refusal(uri: str) -> str | None:
    """Why a client may not register `uri` as a redirect URI, or None: https anywhere, http only to a loopback host
    (OAuth 2.1's native apps), a private-use scheme of an app (`cursor://…`); never a fragment or a browser scheme."""
    if len(uri) > MAX_URI_CHARS:
        return f"a redirect URI is longer than {MAX_URI_CHARS} characters"
    try:
        parts = urlsplit(uri)
        parts.port  # noqa: B018 - raises on a malformed port
    except ValueError:
        return f"{uri!r} is not a URL"
    scheme = parts.scheme.lower()
    if not scheme:
        return f"{uri!r} is not an absolute URL"
    if parts.fragment or "#" in uri:
        return f"{uri!r} has a fragment (RFC 6749 §3.1.2)"
    if scheme in UNSAFE_SCHEMES:
        return f"{uri!r} uses the {scheme}: scheme, which cannot receive a code"
    if scheme == "https":
        return None if parts.hostname else f"{uri!r} has no host"
    if scheme == "http":
        if parts.hostname and is_loopback_host(parts.hostname):
            return None
        return f"{uri!r}: plain http is allowed only to a loopback host (localhost, 127.0.0.1, [::1])"
    return None  # a private-use scheme (RFC 8252 §7.1): the app that claimed it receives the code


def registration_refusal(redirect_uris: Sequence[str], texts: Sequence[str]) -> tuple[str, str] | None:
    """(RFC 7591 error code, description) when a registration's metadata is out of bounds, else None."""
    if not redirect_uris:
        return "invalid_redirect_uri", "at least one redirect URI is required"
    if len(redirect_uris) > MAX_REDIRECT_URIS:
        return "invalid_client_metadata", f"at most {MAX_REDIRECT_URIS} redirect URIs"
    for uri in redirect_uris:
        refusal = redirect_uri_refusal(uri)
        if refusal is not None:
            return "invalid_redirect_uri", refusal
    for text in texts:
        if len(text) > MAX_URI_CHARS:
            return "invalid_client_metadata", f"a metadata value is longer than {MAX_URI_CHARS} characters"
    return None


def form_action(redirect_uri: str) -> str:
    """The approval page's CSP `form-action` source for where its form sends the browser on: the redirect URI's
    origin (browsers apply form-action to the redirect after the POST), or its scheme for a private-use one."""
    parts = urlsplit(redirect_uri)
    if parts.scheme.lower() in ("http", "https"):
        return f"{parts.scheme}://{parts.netloc}"
    return f"{parts.scheme}:"


def redirect_host(redirect_uri: str) -> str:
    """What the approval page names as the place the code goes: the redirect URI's host (or its app scheme)."""
    parts = urlsplit(redirect_uri)
    return parts.netloc or f"{parts.scheme}:"


@dataclass(frozen=True)
class Backoff:
    """The recent failures of one address on the approval page (Unix seconds, oldest first)."""

    failures: tuple[float, ...] = ()

    def recent(self, now: float) -> Backoff:
        return Backoff(tuple(at for at in self.failures if now - at < FAILURE_WINDOW))

    def failed(self, now: float) -> Backoff:
        return Backoff((*self.recent(now).failures, now))

    def wait(self, now: float) -> int:
        """Seconds the address must wait before its next try (0: it may try now)."""
        failures = self.recent(now).failures
        over = len(failures) - FAILURES_ALLOWED
        if over < 0:
            return 0
        until = failures[-1] + min(MAX_WAIT, FIRST_WAIT * 2**over)
        return max(0, int(until - now + 0.999))
