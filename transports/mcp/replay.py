"""Resumability of MCP over HTTP: the SDK's `EventStore`, kept in this process's memory, bounded.

The SDK gives every SSE event it sends an id from here and, when a client reconnects with `Last-Event-ID` (the
stream broke mid-answer), asks for the events of that stream after it. Ids are random, so one session cannot name
another's events; the newest `EVENT_LIMIT` events are kept (a reconnect comes seconds after the break, not hours),
and a restart of `memesh serve` forgets them, as it forgets the sessions themselves.
"""

from __future__ import annotations

import secrets
from collections import OrderedDict
from typing import TYPE_CHECKING

from mcp.server.streamable_http import EventCallback, EventId, EventMessage, EventStore, StreamId

if TYPE_CHECKING:
    from mcp.types import JSONRPCMessage

EVENT_LIMIT = 4096


class ReplayBuffer(EventStore):
    """The newest events of every stream, in the order they were sent."""

    def __init__(self, limit: int = EVENT_LIMIT) -> None:
        self._limit = limit
        self._events: OrderedDict[EventId, tuple[StreamId, JSONRPCMessage | None]] = OrderedDict()

    async def store_event(self, stream_id: StreamId, message: JSONRPCMessage | None) -> EventId:
        event_id = secrets.token_urlsafe(12)
        self._events[event_id] = (stream_id, message)
        while len(self._events) > self._limit:
            self._events.popitem(last=False)
        return event_id

    async def replay_events_after(self, last_event_id: EventId, send_callback: EventCallback) -> StreamId | None:
        found = self._events.get(last_event_id)
        if found is None:
            return None
        stream_id = found[0]
        later = False
        for event_id, (stream, message) in list(self._events.items()):
            if event_id == last_event_id:
                later = True
            elif later and stream == stream_id and message is not None:
                await send_callback(EventMessage(message, event_id))
        return stream_id
