"""Answer every request that reached stdin: the wrappers MeMesh puts around the SDK's stdio streams.

A client may write its requests and close stdin straight away (`printf '…' | memesh-mcp`). The SDK ends the session
at end of input, and a tool call still running then would lose its reply, though its write is committed: the client
would never learn that the memory was stored. These wrappers count the requests read and the replies written, and
hold end of input back from the session until every request read has been answered (or a grace period has passed).
A line the SDK's parser refuses is read again here (see `recover`), or answered with a parse error, never ignored.
"""

from __future__ import annotations

import json
from types import TracebackType
from typing import Any, Self

import anyio
from mcp.shared.message import SessionMessage
from mcp.types import (
    ErrorData,
    JSONRPCError,
    JSONRPCNotification,
    JSONRPCRequest,
    JSONRPCResponse,
    jsonrpc_message_adapter,
)
from pydantic import ValidationError
from returns.result import Failure, Success

from memesh.core.storable import storable_input

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


def recover(exc: Exception) -> tuple[SessionMessage | None, str | int | None]:
    """The message in a line the SDK's parser refused, or (None, the request id if one can be read).

    The SDK's JSON parser refuses a lone UTF-16 surrogate escape (`\\ud83d` with its pair cut off, as JavaScript's
    JSON.stringify writes when text is cut mid-emoji), which JSON allows; Python's parser reads it. The message is
    taken from the line as Python reads it, each lone surrogate made U+FFFD as every tool input is, so the call is
    answered instead of left waiting. A line that is not JSON at all, or that nests too deeply, stays a parse error,
    addressed to its id when the id can be read.
    """
    errors = exc.errors() if isinstance(exc, ValidationError) else []
    raw = errors[0].get("input") if len(errors) == 1 and errors[0].get("type") == "json_invalid" else None
    if not isinstance(raw, str):
        return None, None
    try:
        value = json.loads(raw)
    except (ValueError, RecursionError):
        return None, None
    found = value.get("id") if isinstance(value, dict) else None
    request_id = found if isinstance(found, str | int) and not isinstance(found, bool) else None
    match storable_input(value):
        case Success(cleaned):
            pass
        case Failure():
            return None, request_id
    try:
        return SessionMessage(jsonrpc_message_adapter.validate_python(cleaned, by_name=False)), request_id
    except ValidationError:
        return None, request_id


class _Wrapper:
    """A stream standing in for the SDK's: closing, the context manager and any other attribute (such as
    `last_context`, which the SDK reads when a stream carries it) go to the stream it wraps."""

    def __init__(self, inner: Any) -> None:
        self._inner = inner

    async def aclose(self) -> None:
        await self._inner.aclose()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.aclose()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


class DrainingReader(_Wrapper):
    """The server's read stream, with end of input held back while requests are unanswered.

    A line that is not a JSON-RPC message reaches the SDK as an exception, which it drops without a word; the client
    would wait for ever. It is answered here instead, as JSON-RPC says: a parse error with a null id.
    """

    def __init__(self, inner: Any, inflight: Inflight, writer: Any, grace: float = GRACE_SECONDS) -> None:
        super().__init__(inner)
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
            recovered, request_id = recover(item)
            if recovered is not None:
                item = recovered
                break
            error = ErrorData(code=PARSE_ERROR, message="Parse error: the line is not a JSON-RPC message")
            await self._writer.send(SessionMessage(JSONRPCError(jsonrpc="2.0", id=request_id, error=error)))
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


class AnsweringWriter(_Wrapper):
    """The server's write stream, marking each request answered once its reply is handed to the transport."""

    def __init__(self, inner: Any, inflight: Inflight) -> None:
        super().__init__(inner)
        self._inflight = inflight

    async def send(self, item: Any, /) -> None:
        await self._inner.send(item)
        if isinstance(item, SessionMessage) and isinstance(item.message, JSONRPCResponse | JSONRPCError):
            self._inflight.answered(item.message.id)
