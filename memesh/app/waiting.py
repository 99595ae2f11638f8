"""A message poll's `wait_ms`: look again only when a new message event exists, until one arrives or time runs out.

The operation itself answers at once. Waiting is the caller's: the HTTP and MCP servers wait asynchronously (no
thread per waiting client: each waiter sleeps on the event loop, and one shared, rate-limited read of the newest
event id tells every waiter of a process whether to poll again); the CLI's `watch` waits in its own process. A poll
run again with the same arguments reads from the same cursor position, so nothing between two looks is missed.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from typing import Any

import anyio
import anyio.to_thread
from returns.result import Result, Success

from memesh.errors import MemeshError

CHECK_INTERVAL_S = 0.02  # how stale the newest-event id may be: the wake latency a waiting poll adds


def wait_ms(tool: str, arguments: Any) -> int:
    """How long this call may wait: a message poll's wait_ms, 0 for everything else."""
    if tool != "message" or not isinstance(arguments, dict) or arguments.get("action") != "poll":
        return 0
    value = arguments.get("wait_ms")
    return int(value) if isinstance(value, int | float) and not isinstance(value, bool) and value > 0 else 0


def _empty(result: Any) -> bool:
    return isinstance(result, Success) and not result.unwrap().get("events")


def _timed_out(result: Result[Any, MemeshError]) -> Result[Any, MemeshError]:
    return Success({**result.unwrap(), "timed_out": True}) if _empty(result) else result


class HighWater:
    """The newest message event id, read at most once per interval however many polls wait on it."""

    def __init__(self, read: Callable[[], int], interval_s: float = CHECK_INTERVAL_S) -> None:
        self._read = read
        self._interval = interval_s
        self._value = 0
        self._at = float("-inf")
        self._lock = anyio.Lock()

    async def current(self) -> int:
        async with self._lock:
            if time.monotonic() - self._at >= self._interval:
                self._value = await anyio.to_thread.run_sync(self._read)
                self._at = time.monotonic()
            return self._value


async def call_waiting(run: Callable[[], Awaitable[Any]], wait: int, high_water: HighWater) -> Any:
    """`run()` now; while it finds no event and `wait` ms have not passed, again each time a new event exists."""
    if wait <= 0:
        return await run()
    deadline = time.monotonic() + wait / 1000
    seen = await high_water.current()  # read before the first poll, so an event landing in between wakes us
    result = await run()
    while _empty(result):
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return _timed_out(result)
        await anyio.sleep(min(CHECK_INTERVAL_S, remaining))
        newest = await high_water.current()
        if newest > seen:
            seen = newest
            result = await run()
    return result


def call_waiting_sync(
    run: Callable[[], Result[Any, MemeshError]], wait: int, read_high_water: Callable[[], int]
) -> Result[Any, MemeshError]:
    """The same wait in a process of its own (the CLI): sleep, look at the newest event id, poll again if it grew."""
    if wait <= 0:
        return run()
    deadline = time.monotonic() + wait / 1000
    seen = read_high_water()
    result = run()
    while _empty(result):
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return _timed_out(result)
        time.sleep(min(CHECK_INTERVAL_S, remaining))
        newest = read_high_water()
        if newest > seen:
            seen = newest
            result = run()
    return result
