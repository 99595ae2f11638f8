"""memesh-mcp: MeMesh as an MCP stdio server, on the SDK's low-level Server so the schema files are served as written.

Both protocol eras are answered by the SDK's runner: the 2025-11-25 initialize handshake and the 2026-07-28
per-request envelope. Only protocol messages reach stdout: while serving, fd 1 points at stderr and the wire is
written through a private duplicate (claimed by early.py, or by stdio_server when run without it), so a stray print
cannot corrupt the stream. `memesh-mcp` starts in early.py, which answers the session's opening while this module
and the SDK load, and passes everything on to `serve`.
"""

from __future__ import annotations

import fcntl
import io
import json
import logging
import os
import sys
from collections.abc import AsyncIterable, AsyncIterator, Callable, Iterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager, contextmanager, suppress
from typing import IO, TYPE_CHECKING, Any, cast

import anyio
import anyio.to_thread
from mcp import types
from mcp.server import Server, ServerRequestContext
from mcp.server.stdio import stdio_server
from mcp.shared.message import SessionMessage

import memesh
from memesh.app.waiting import WAITERS, call_waiting, wait_ms
from memesh.context import Caller
from memesh.core.provenance import clean_host
from memesh.hosts import session_from_environment
from memesh.transports.mcp import calls, channel
from memesh.transports.mcp.backend import Backend
from memesh.transports.mcp.calls import DEFAULT_HOST
from memesh.transports.mcp.drain import AnsweringWriter, DrainingReader, Inflight, ScreenedLines
from memesh.transports.mcp.instructions import INSTRUCTIONS
from memesh.transports.mcp.results import client_name, tool_listing
from memesh.transports.mcp.roots import roots_asker
from memesh.transports.mcp.session_hooks import serve_hooks

if TYPE_CHECKING:
    from memesh.transports.mcp.early import Front

log = logging.getLogger("memesh.mcp")

SERVER_NAME = "memesh"


def _lifespan(backend: Backend, *, hooks: bool) -> Callable[[Server[Backend]], AbstractAsyncContextManager[Backend]]:
    @asynccontextmanager
    async def lifespan(_server: Server[Backend]) -> AsyncIterator[Backend]:
        await anyio.to_thread.run_sync(backend.open)
        hook_server = serve_hooks(backend) if hooks else None
        try:
            yield backend
        finally:
            if hook_server is not None:
                hook_server.close()
            backend.close()

    return lifespan


# Where the HTTP edge leaves who presented the bearer on a remote listener (transports/http/boundary.CALLER_KEY):
# each /mcp request carries its own, so a revoked member's next tool call is refused even in an open session.
CALLER_KEY = "memesh.caller"


def _caller_of(ctx: ServerRequestContext[Backend]) -> Caller | None:
    """The member behind this request's bearer (None on stdio and on a loopback listener)."""
    scope = getattr(ctx.request, "scope", None)
    found = scope.get(CALLER_KEY) if isinstance(scope, dict) else None
    return found if isinstance(found, Caller) else None


def build_server(
    backend: Backend,
    *,
    hooks: bool = True,
    caller_session: Callable[[], str | None] = session_from_environment,
) -> Server[Backend]:
    """The MCP server for MeMesh's tools, calling them on `backend` (opened when the server starts).

    memesh-mcp (stdio) runs in its client's session: it also serves that session's hook events (`hooks`) and calls
    as the session its environment names (`caller_session`). Over HTTP (`memesh serve`, streamable.py) neither
    holds: the clients are elsewhere, and the server's own environment names none of them.
    """
    listing = tool_listing()

    async def list_tools(
        _ctx: ServerRequestContext[Backend], _params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return listing.model_copy(deep=True)

    async def call_tool(
        ctx: ServerRequestContext[Backend], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        backend = ctx.lifespan_context
        caller = _caller_of(ctx)
        call_ctx = backend.resources.context(
            clean_host(client_name(ctx), DEFAULT_HOST),
            True,
            caller_session=caller_session(),
            workspace_roots=roots_asker(ctx),
            **({"caller": caller} if caller is not None else {}),
        )
        wait = wait_ms(params.name, params.arguments)
        if wait:
            with WAITERS.held() as admitted:  # past the process's cap a poll is answered at once, as with wait_ms 0
                if admitted:
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
        lifespan=_lifespan(backend, hooks=hooks),
        on_list_tools=list_tools,
        on_call_tool=call_tool,
    )


@contextmanager
def _claimed_stdin() -> Iterator[ScreenedLines]:
    """stdin's lines for the wire, screened (`drain.screen`), with fd 0 pointed at the null device meanwhile,
    as the SDK does for the stdin it opens itself: a tool or a child process reading stdin gets end of input rather
    than a client's requests."""
    wire = fcntl.fcntl(0, fcntl.F_DUPFD_CLOEXEC, 3)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    text = io.TextIOWrapper(os.fdopen(wire, "rb", closefd=False), encoding="utf-8", errors="replace")
    try:
        yield ScreenedLines(anyio.wrap_file(text))
    finally:
        os.dup2(wire, 0)


def _backend() -> Backend:
    """The backend, with the update notice riding on successful calls when update checks are on."""
    return Backend(caller=calls.process_caller())


async def serve_streams(
    backend: Backend,
    stdin: AsyncIterable[str],
    stdout: anyio.AsyncFile[str] | None = None,
    replayed: dict[str, str] | None = None,
    *,
    hooks: bool = True,
) -> None:
    """Serve MCP until `stdin` ends, writing to the process's stdout unless another is given; `hooks=False` when
    the session's hook server runs already (started by the early front)."""
    server = build_server(backend, hooks=hooks)
    async with stdio_server(stdin, stdout) as (read_stream, write_stream):  # type: ignore[arg-type]
        inflight = Inflight()  # every request read before stdin closed gets its answer
        writer = AnsweringWriter(ReplayCheck(write_stream, replayed or {}), inflight)
        reader = DrainingReader(read_stream, inflight, writer)
        # Inside a Claude Code session with a declared recipient, also its host adapter on the local router.
        adapter = await channel.start(writer)
        experimental: dict[str, dict[str, Any]] | None = {channel.CAPABILITY: {}} if adapter is not None else None
        stream: Any = reader if adapter is None else channel.ActivatingReader(reader, adapter)
        try:
            await server.run(
                stream, writer, server.create_initialization_options(experimental_capabilities=experimental)
            )
        finally:
            if adapter is not None:
                await adapter.close()
            # Text printed without a flush still sits in Python's buffer: let it out now, while fd 1 points at
            # stderr, not at exit, after stdio_server has handed fd 1 back to the wire.
            sys.stdout.flush()


async def serve(front: Front | None = None, hooks: bool = True) -> None:
    """Serve MCP until the client closes stdin: on the process's stdin/stdout, or behind `front` (early.py);
    `hooks=False` when the front started the session's hook server already."""
    if front is None:
        with _claimed_stdin() as lines:
            await serve_streams(_backend(), lines)
        return
    handed = front.hand_over()
    if handed is None:  # the client ended the session while the SDK loaded, every request answered by the front
        front.close()
        return
    replayed, caller = handed
    stdin, stdout = _front_files(front)  # the front claimed fd 0 and fd 1 already
    # From here on the SDK answers everything; what the front already answered is checked against it, and the
    # calls it ran keep their connections and update notice.
    backend = Backend(caller=caller) if caller is not None else _backend()
    await serve_streams(backend, ScreenedLines(stdin), stdout, replayed, hooks=hooks)


def _front_files(front: Front) -> tuple[anyio.AsyncFile[str], anyio.AsyncFile[str]]:
    """The SDK's stdin and stdout behind the front: the lines it passes on, and the wire, written a whole message at
    a time under the front's lock (a call the front is still answering writes to it too)."""
    stdin = io.TextIOWrapper(front.sdk_input, encoding="utf-8", errors="replace")
    return anyio.wrap_file(stdin), anyio.wrap_file(cast("IO[str]", front.wire_writer()))


class ReplayCheck:
    """The write stream, without the SDK's answers to requests the front answered early (passed on under a private
    id): each is compared with what the front sent, and a difference is logged, since the client already has its
    answer. A difference means generated/mcp_answers.py is stale: `python tools/codegen.py` records it anew."""

    def __init__(self, inner: Any, replayed: dict[str, str]) -> None:
        self._inner = inner
        self._replayed = replayed

    async def send(self, item: Any, /) -> None:
        message = item.message if isinstance(item, SessionMessage) else None
        request_id = message.id if isinstance(message, types.JSONRPCResponse | types.JSONRPCError) else None
        sent = self._replayed.pop(request_id, None) if isinstance(request_id, str) else None
        if sent is None:
            await self._inner.send(item)
            return
        wire = json.loads(item.message.model_dump_json(by_alias=True, exclude_unset=True))
        if wire.get("result") != json.loads(sent):
            log.warning("an early answer differs from the SDK's own (%s); run tools/codegen.py", request_id)

    async def aclose(self) -> None:
        await self._inner.aclose()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


def run(front: Front | None = None, *, hooks: bool = True) -> None:
    """Serve until the client closes stdin, logging to stderr; Ctrl-C (a person stopping it by hand) is no error.
    `hooks=False`: the session's hook server runs already (the early front started it)."""
    calls.configure_logging()
    with suppress(KeyboardInterrupt):
        anyio.run(serve, front, hooks)


def main() -> None:
    """Entry point of `memesh-mcp` (early.main: the session's opening is answered while this module loads)."""
    from memesh.transports.mcp import early

    early.main()
