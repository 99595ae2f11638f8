"""The local router's wire: one JSON object per line over the owner-private Unix socket (`memesh.paths.router_socket`).

Shared by both ends, so it sits below them: the router (transports/router, a surface like MCP and HTTP) and its
clients (memesh/adapters/router_client.py for a sender, router_host.py for a host adapter holding a registration).
Plain values and framing only: see docs/adr/0004-message-router.md for what each line means.
"""

from __future__ import annotations

import json
from typing import Any, Final

LINE_LIMIT: Final = 256 * 1024  # a request line: the 16 KiB envelope escaped again as a JSON string (≤ 6x) fits
HOST_ACCEPT_TIMEOUT_S: Final = 10.0  # how long an exact-session send waits for the host to accept
DEFAULT_LEASE_MS: Final = 60_000
# A lease a host asks for outside these bounds gets the default (a registration that lives for 1 s, or for days
# after its host has gone, helps no one).
MIN_LEASE_MS: Final = 1_000
MAX_LEASE_MS: Final = 600_000


def lease_ms(asked: int | None) -> int:
    """The lease a registration gets: what its host asked for within the bounds, else the default."""
    return asked if asked is not None and MIN_LEASE_MS <= asked <= MAX_LEASE_MS else DEFAULT_LEASE_MS


def encode(message: dict[str, Any]) -> bytes:
    return (json.dumps(message, ensure_ascii=False, separators=(",", ":")) + "\n").encode("utf-8")


def decode(line: bytes) -> dict[str, Any] | None:
    """One line as a JSON object; None for anything else (the peer gets an error, never a crash)."""
    try:
        value = json.loads(line)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None
