"""The event store behind MCP over HTTP's resumability: per stream, in order, bounded, ids nobody can guess."""

from __future__ import annotations

import anyio
from mcp.server.streamable_http import EventMessage
from mcp.types import JSONRPCMessage, JSONRPCNotification

from memesh.transports.mcp.replay import ReplayBuffer


def _note(n: int) -> JSONRPCMessage:
    return JSONRPCNotification(jsonrpc="2.0", method="notifications/message", params={"n": n})


def _replayed(buffer: ReplayBuffer, after: str) -> tuple[str | None, list[int]]:
    sent: list[EventMessage] = []

    async def collect(event: EventMessage) -> None:
        sent.append(event)

    async def go() -> str | None:
        return await buffer.replay_events_after(after, collect)

    stream = anyio.run(go)
    return stream, [_number(event.message) for event in sent]


def _number(message: JSONRPCMessage) -> int:
    assert isinstance(message, JSONRPCNotification) and message.params is not None
    return int(message.params["n"])


def _store(buffer: ReplayBuffer, stream: str, message: JSONRPCMessage | None) -> str:
    async def go() -> str:
        return await buffer.store_event(stream, message)

    return anyio.run(go)


def test_only_the_same_streams_later_events_are_replayed_in_order() -> None:
    buffer = ReplayBuffer()
    priming = _store(buffer, "a", None)
    _store(buffer, "a", _note(1))
    _store(buffer, "b", _note(99))
    _store(buffer, "a", _note(2))
    assert _replayed(buffer, priming) == ("a", [1, 2])


def test_an_unknown_or_forgotten_event_id_replays_nothing() -> None:
    buffer = ReplayBuffer(limit=2)
    first = _store(buffer, "a", _note(1))
    _store(buffer, "a", _note(2))
    _store(buffer, "a", _note(3))  # the oldest falls out
    assert _replayed(buffer, first) == (None, [])
    assert _replayed(buffer, "0") == (None, [])


def test_event_ids_are_random_not_counted() -> None:
    buffer = ReplayBuffer()
    ids = {_store(buffer, "a", None) for _ in range(50)}
    assert len(ids) == 50 and all(len(event_id) >= 16 for event_id in ids)
