"""Who may reach the API: the origin boundary (every /v1 request) and bearer auth (remote listeners only).

The default listener is loopback with no authentication, which a browser on this machine would otherwise cross:
any page can POST a form to 127.0.0.1 without a preflight. So browsers are held to same-origin, and a loopback
listener refuses a non-loopback Host (DNS rebinding makes the browser call evil.example same-origin).
Non-browser clients send none of these headers and pass.
"""

from __future__ import annotations

import hmac
import ipaddress
from collections.abc import Mapping
from urllib.parse import urlsplit

from memesh.errors import ErrorCode, MemeshError
from memesh.transports.http.errors import HttpFailure

# Where the edge leaves who presented the bearer (a `memesh.context.Caller`) in the request's ASGI scope, for /v1's
# endpoints and /mcp's tool calls to build their call context from.
CALLER_KEY = "memesh.caller"
LOOPBACK_NAMES = frozenset({"localhost", "::1", "127.0.0.1"})
SAME_SITE_VALUES = frozenset({"same-origin", "none"})
DEFAULT_PORTS = {"http": 80, "https": 443}

CROSS_SITE_MESSAGE = "Cross-site requests are not accepted by the MeMesh API."
CROSS_SITE_HINT = (
    "The dashboard served by this server is same-origin and works normally. Scripts should call the API directly "
    "(no Origin header) or use the CLI."
)
LOOPBACK_HOST_HINT = "This server is bound to loopback and has no authentication. Reach it as 127.0.0.1 or localhost."


def is_loopback(host: str) -> bool:
    """A loopback name: localhost, ::1, or an address in 127.0.0.0/8 (also IPv4-mapped), brackets allowed."""
    name = host.strip().lower()
    if name.startswith("[") and name.endswith("]"):
        name = name[1:-1]
    if name in LOOPBACK_NAMES:
        return True
    if not name.startswith(("127.", "::ffff:127.")):
        return False
    # Only a real address counts: a name such as 127.evil.example is an ordinary DNS name that anyone can point
    # at 127.0.0.1, which is exactly what the Host check exists to refuse.
    try:
        address = ipaddress.ip_address(name)
    except ValueError:
        return False
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return address.ipv4_mapped.is_loopback
    return address.is_loopback


def strip_port(host: str) -> str:
    """`host[:port]` without the port; a bracketed IPv6 literal keeps its brackets."""
    if host.startswith("["):
        end = host.find("]")
        return host[: end + 1] if end != -1 else host
    colon = host.rfind(":")
    return host[:colon] if colon != -1 else host


def _cross_site() -> HttpFailure:
    return HttpFailure(MemeshError(ErrorCode.AUTH_CROSS_ORIGIN, CROSS_SITE_MESSAGE), extra={"hint": CROSS_SITE_HINT})


def origin_authority(origin: str) -> str | None:
    """`host[:port]` of an Origin header, lowercase, default port dropped; None when it is not a URL with a host."""
    try:
        parts = urlsplit(origin.strip())
        port = parts.port
    except ValueError:
        return None
    if not parts.scheme or not parts.hostname:
        return None
    host = f"[{parts.hostname}]" if ":" in parts.hostname else parts.hostname
    if port is None or DEFAULT_PORTS.get(parts.scheme.lower()) == port:
        return host
    return f"{host}:{port}"


def check_origin(headers: Mapping[str, str], *, check_host: bool) -> HttpFailure | None:
    """The origin boundary, in order: Host (only where `check_host`), Sec-Fetch-Site, then Origin against Host."""
    host = headers.get("host") or None  # an HTTP/1.0 client may send none; the server then sees it empty
    if check_host and host is not None and not is_loopback(strip_port(host.strip())):
        error = MemeshError(
            ErrorCode.AUTH_CROSS_ORIGIN, f'Request arrived with Host "{host}", which is not a loopback name.'
        )
        return HttpFailure(error, extra={"hint": LOOPBACK_HOST_HINT})
    fetch_site = headers.get("sec-fetch-site")
    if fetch_site is not None:
        return None if fetch_site.strip().lower() in SAME_SITE_VALUES else _cross_site()
    origin = headers.get("origin")
    if origin is not None:  # `null` (a sandboxed or opaque origin) matches no Host, so it is refused too
        authority = origin_authority(origin)
        if authority is None or authority != (host or "").strip().lower():
            return _cross_site()
    return None


def check_bearer(authorization: str | None, token: str | None) -> HttpFailure | None:
    """Bearer auth for a remote listener: 401 without a matching token, 503 when the server has none configured."""
    presented = presented_bearer(authorization, token)
    if isinstance(presented, HttpFailure):
        return presented
    if not hmac.compare_digest(presented, (token or "").encode("utf-8")):
        return invalid_token()
    return None


def presented_bearer(authorization: str | None, token: str | None) -> bytes | HttpFailure:
    """The bearer token as the bytes the client sent; 503 when the server has no owner token, 401 when none was
    presented. Whose token it is, is the app's question (`memesh.app.members`)."""
    if not token:
        return HttpFailure(
            MemeshError(ErrorCode.AUTH_NOT_CONFIGURED, "remote bearer auth not configured on this server")
        )
    parts = (authorization or "").strip().split(None, 1)
    scheme = parts[0] if parts else ""
    presented = parts[1].strip() if len(parts) == 2 else ""
    if scheme.lower() != "bearer" or not presented:
        return HttpFailure(MemeshError(ErrorCode.AUTH_MISSING_BEARER, "Missing Authorization: Bearer <token>"))
    return _header_bytes(presented)


def invalid_token() -> HttpFailure:
    return HttpFailure(MemeshError(ErrorCode.AUTH_INVALID_TOKEN, "Invalid bearer token"))


def _header_bytes(value: str) -> bytes:
    """A header value as the bytes the client sent. ASGI servers hand headers over as bytes and they are decoded as
    latin-1 (one character per byte), so a token typed in UTF-8 (`pässwörd…`) is compared byte for byte with the
    configured token's UTF-8; text that cannot be latin-1 was never such a decode, and is taken as UTF-8."""
    try:
        return value.encode("latin-1")
    except UnicodeEncodeError:
        return value.encode("utf-8")
