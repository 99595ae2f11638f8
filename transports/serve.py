"""Placeholder for the HTTP server entry point, written on another branch; replaced on merge."""

from __future__ import annotations


def serve(host: str = "127.0.0.1", port: int = 3737, allow_remote: bool = False) -> int:
    """Serve the HTTP API and dashboard until interrupted; the exit status."""
    raise NotImplementedError("memesh serve is not part of this branch yet")
