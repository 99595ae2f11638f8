"""The client's workspace roots (MCP `roots/list`), asked from a tool call's worker thread when an operation needs
them: transcript work packages bind to the one root of the project, so a client that offers none fails closed."""

from __future__ import annotations

import logging
import warnings
from collections.abc import Callable
from typing import Any

import anyio
import anyio.from_thread
from mcp import types
from mcp.server import ServerRequestContext
from mcp.shared.exceptions import MCPDeprecationWarning

log = logging.getLogger("memesh.mcp")
ROOTS_TIMEOUT_SECONDS = 10.0


def roots_asker(ctx: ServerRequestContext[Any, Any]) -> Callable[[], list[str] | None]:
    """A function (run in the call's worker thread) returning the root URIs the client offers, or None when it
    declared no roots capability, cannot be asked, or did not answer in time."""

    async def ask() -> types.ListRootsResult:
        with anyio.fail_after(ROOTS_TIMEOUT_SECONDS), warnings.catch_warnings():
            # Deprecated from protocol 2026-07-28 on, and still the only way a 2025-11-25 client names its roots.
            warnings.simplefilter("ignore", MCPDeprecationWarning)
            return await ctx.session.list_roots()

    def roots() -> list[str] | None:
        try:
            if not ctx.session.check_client_capability(types.ClientCapabilities(roots=types.RootsCapability())):
                return None
            answer = anyio.from_thread.run(ask)
        except Exception as exc:  # no back channel, a timeout, a malformed answer: all mean "no usable roots"
            log.info("roots/list gave no usable answer: %s", type(exc).__name__)
            return None
        return [str(root.uri) for root in answer.roots]

    return roots
