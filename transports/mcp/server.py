"""memesh-mcp: MeMesh as an MCP stdio server, on the SDK's low-level Server so the schema files are served verbatim.

Both protocol eras are answered by the SDK's runner: the 2025-11-25 initialize handshake and the 2026-07-28
per-request envelope. Only protocol messages reach stdout: while serving, stdio_server points fd 1 at stderr and
writes the wire through a private duplicate, so a stray print cannot corrupt the stream.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager, suppress
from typing import Any

import anyio
import anyio.to_thread
from mcp import types
from mcp.server import Server, ServerRequestContext
from mcp.server.stdio import stdio_server

import memesh
from memesh.app.waiting import call_waiting, wait_ms
from memesh.context import CallContext, clean_host, session_from_environment
from memesh.transports.mcp import channel
from memesh.transports.mcp.backend import Backend
from memesh.transports.mcp.drain import AnsweringWriter, DrainingReader, Inflight
from memesh.transports.mcp.instructions import INSTRUCTIONS
from memesh.transports.mcp.results import client_name, tool_listing
from memesh.transports.mcp.roots import roots_asker

SERVER_NAME = "memesh"
DEFAULT_HOST = "mcp"  # the provenance stamp when the client declares no name


def _lifespan(backend: Backend) -> Callable[[Server[Backend]], AbstractAsyncContextManager[Backend]]:
    @asynccontextmanager
    async def lifespan(_server: Server[Backend]) -> AsyncIterator[Backend]:
        await anyio.to_thread.run_sync(backend.open)
        try:
            yield backend
        finally:
            backend.close()

    return lifespan


def build_server(backend: Backend) -> Server[Backend]:
    """The MCP server for MeMesh's tools, calling them on `backend` (opened when the server starts)."""
    listing = tool_listing()

    async def list_tools(
        _ctx: ServerRequestContext[Backend], _params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return listing.model_copy(deep=True)

    async def call_tool(
        ctx: ServerRequestContext[Backend], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        call_ctx = CallContext(
            source_host=clean_host(client_name(ctx), DEFAULT_HOST),
            agent_view=True,
            caller_session=session_from_environment(),
            workspace_roots=roots_asker(ctx),
        )
        backend = ctx.lifespan_context
        wait = wait_ms(params.name, params.arguments)
        if wait:
            # A long poll waits on the event loop between looks, holding neither a thread nor the store.
            outcome = await call_waiting(
                lambda: anyio.to_thread.run_sync(backend.run, params.name, params.arguments, call_ctx),
                wait,
                backend.high_water,
            )
            return backend.answer(params.name, outcome)
        # The store is synchronous SQLite: a call runs in a worker thread so the event loop keeps serving.
        return await anyio.to_thread.run_sync(backend.call, params.name, params.arguments, call_ctx)

    return Server(
        SERVER_NAME,
        version=memesh.__version__,
        instructions=INSTRUCTIONS,
        lifespan=_lifespan(backend),
        on_list_tools=list_tools,
        on_call_tool=call_tool,
    )


async def serve() -> None:
    """Serve MCP on stdin/stdout until the client closes stdin."""
    server = build_server(Backend())
    async with stdio_server() as (read_stream, write_stream):
        inflight = Inflight()  # every request read before stdin closed gets its answer
        writer = AnsweringWriter(write_stream, inflight)
        reader = DrainingReader(read_stream, inflight, writer)
        # Inside a Claude Code session with a declared recipient, also its host adapter on the local router.
        adapter = await channel.start(writer)
        experimental: dict[str, dict[str, Any]] | None = {channel.CAPABILITY: {}} if adapter is not None else None
        try:
            await server.run(
                reader, writer, server.create_initialization_options(experimental_capabilities=experimental)
            )
        finally:
            if adapter is not None:
                await adapter.close()
            # Text printed without a flush still sits in Python's buffer: let it out now, while fd 1 points at
            # stderr, not at exit, after stdio_server has handed fd 1 back to the wire.
            sys.stdout.flush()


def main() -> None:
    """Entry point of `memesh-mcp`."""
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr, format="memesh-mcp: %(levelname)s: %(message)s")
    # Ctrl-C in a terminal is how a person stops a stdio server by hand: no traceback for it.
    with suppress(KeyboardInterrupt):
        anyio.run(serve)
