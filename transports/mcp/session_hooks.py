"""The hook server a memesh-mcp session runs (memesh-hook's warm path), started without the mcp SDK: by the early
front once the client is quiet (the SDK may never be loaded in a session the front answers whole), or by the SDK's
lifespan when the SDK serves from the start."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from memesh.transports.hooks.server import HookServer


class ServesDatabases(Protocol):
    def serves(self, database: str) -> bool: ...


def serve_hooks(backend: ServesDatabases) -> HookServer | None:
    """This process runs hook events for hook processes of the same database, on its own thread
    (transports/hooks/server.py); None when MEMESH_HOOK_SERVER turns it off, or when the backend was handed a
    database other than the one the environment names (no hook process would look for it, and the hook server must
    not serve the environment's database from a server of another)."""
    from memesh.transports.hooks.server import HookServer

    server = HookServer.for_environment()
    if server is not None and not backend.serves(server.db):
        return None
    if server is not None:
        server.start()
    return server
