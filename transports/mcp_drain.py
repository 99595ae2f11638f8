"""Answer every request that arrived before stdin closed.

A client may write its requests and close stdin straight away (`printf '…' | memesh-mcp`). The SDK ends the session
at end of input, and a tool call still running then would lose its reply, though its write is committed: the client
would never learn that the memory was stored. These wrappers count the requests read and the replies written, and
hold end of input back from the session until every request read has been answered (or a grace period has passed).
"""

from __future__ import annotations

from types import TracebackType
from typing import Any

import anyio
from mcp.shared.message import SessionMessage
from mcp.types import ErrorData, JSONRPCError, JSONRPCNotification, JSONRPCRequest, JSONRPCResponse

GRACE_SECONDS = 30.0
PARSE_ERROR = -32700
CANCELLED = "notifications/cancelled"


class Inflight:
    """The ids of requests read and not yet answered."""

    def __init__(self) -> None:
        self._ids: set[Any] = set()
        self._idle = anyio.Event()
        self._idle.set()

    @property
    def pending(self) -> int:
        return len(self._ids)

    def started(self, request_id: Any) -> None:
        if not self._ids:
            self._idle = anyio.Event()
        self._ids.add(request_id)

    def answered(self, request_id: Any) -> None:
        self._ids.discard(request_id)
        if not self._ids:
            self._idle.set()

    async def drained(self, grace: float) -> None:
        """Return once every request has been answered, or after `grace` seconds."""
        with anyio.move_on_after(grace):
            await self._idle.wait()


class DrainingReader:
    """The server's read stream, with end of input held back while requests are unanswered.

    A line that is not a JSON-RPC message reaches the SDK as an exception, which it drops without a word; the client
    would wait for ever. It is answered here instead, as JSON-RPC says: a parse error with a null id.
    """

    def __init__(self, inner: Any, inflight: Inflight, writer: Any, grace: float = GRACE_SECONDS) -> None:
        self._inner = inner
        self._inflight = inflight
        self._writer = writer
        self._grace = grace

    async def receive(self) -> Any:
        while True:
            try:
                item = await self._inner.receive()
            except anyio.EndOfStream:
                await self._inflight.drained(self._grace)
                raise
            if not isinstance(item, Exception):
                break
            error = ErrorData(code=PARSE_ERROR, message="Parse error: the line is not a JSON-RPC message")
            await self._writer.send(SessionMessage(JSONRPCError(jsonrpc="2.0", id=None, error=error)))
        if isinstance(item, SessionMessage):
            message = item.message
            if isinstance(message, JSONRPCRequest):
                self._inflight.started(message.id)
            elif isinstance(message, JSONRPCNotification) and message.method == CANCELLED:
                # A cancelled request gets no reply, so it is not waited for at end of input.
                self._inflight.answered((message.params or {}).get("requestId"))
        return item

    def __aiter__(self) -> DrainingReader:
        return self

    async def __anext__(self) -> Any:
        try:
            return await self.receive()
        except anyio.EndOfStream:
            raise StopAsyncIteration from None

    async def aclose(self) -> None:
        await self._inner.aclose()

    async def __aenter__(self) -> DrainingReader:
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.aclose()

    def __getattr__(self, name: str) -> Any:  # e.g. `last_context`, which the SDK reads when a stream carries it
        return getattr(self._inner, name)


class AnsweringWriter:
    """The server's write stream, marking each request answered once its reply is handed to the transport."""

    def __init__(self, inner: Any, inflight: Inflight) -> None:
        self._inner = inner
        self._inflight = inflight

    async def send(self, item: Any, /) -> None:
        await self._inner.send(item)
        if isinstance(item, SessionMessage) and isinstance(item.message, JSONRPCResponse | JSONRPCError):
            self._inflight.answered(item.message.id)

    async def aclose(self) -> None:
        await self._inner.aclose()

    async def __aenter__(self) -> AnsweringWriter:
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.aclose()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)
