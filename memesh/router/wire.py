"""The router's wire: one JSON object per line over the owner-private Unix socket, and where that socket lives."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Final

from memesh import paths

SOCKET_NAME: Final = "router.sock"
LINE_LIMIT: Final = 256 * 1024  # a request line: the 16 KiB envelope escaped again as a JSON string (≤ 6x) fits
HOST_ACCEPT_TIMEOUT_S: Final = 10.0  # how long an exact-session send waits for the host to accept
DEFAULT_LEASE_MS: Final = 60_000
HOST_KINDS: Final = frozenset({"claude-code", "codex", "acp", "codex-app-server", "test"})


def socket_path() -> Path:
    """The router's socket: router.sock in the MeMesh folder (MEMESH_DIR, default ~/.memesh)."""
    return paths.memesh_dir() / SOCKET_NAME


def encode(message: dict[str, Any]) -> bytes:
    return (json.dumps(message, ensure_ascii=False, separators=(",", ":")) + "\n").encode("utf-8")


def decode(line: bytes) -> dict[str, Any] | None:
    """One line as a JSON object; None for anything else (the peer gets an error, never a crash)."""
    try:
        value = json.loads(line)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None
