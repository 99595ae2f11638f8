"""A message poll's `wait_ms`: look again only when a new message event exists, until one arrives or time runs out.

The operation itself answers at once. Waiting is the caller's: the HTTP and MCP servers wait asynchronously (no
thread per waiting client: each waiter sleeps on the event loop, and one shared, rate-limited read of the newest
event id tells every waiter of a process whether to poll again); the CLI's `watch` waits in its own process. A poll
run again with the same arguments reads from the same cursor position, so nothing between two looks is missed.

How many polls of one process may wait at once is capped (`WAITERS`): over HTTP each waiting poll holds a socket,
and at a 1024-descriptor limit 1100 waiting polls left none for a database connection, so unrelated requests failed.
A poll over the cap is answered at once with what is there, exactly as the same poll with wait_ms 0 would be: its
events if any (a refusal would withhold them), and it never becomes an error a client has to handle.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from typing import Any, Final

from returns.result import Result, Success

from memesh.errors import MemeshError

CHECK_INTERVAL_S = 0.02  # how stale the newest-event id may be: the wake latency a waiting poll adds
# A quarter of the process's descriptors may be held by waiting polls; the rest stay for the API (a database
# connection per worker thread is three: the file, its WAL and its shared-memory index), the excess polls while
# they are answered, and the listener. Never fewer than MIN_WAITERS, never more than MAX_WAITERS.
WAITER_SHARE: Final = 4
MIN_WAITERS: Final = 16
MAX_WAITERS: Final = 4096


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


def waiter_cap() -> int:
    """How many polls may wait at once in this process, from its descriptor limit (the soft one)."""
    try:
        import resource
    except ImportError:  # not on POSIX: no descriptor limit to read
        return MAX_WAITERS
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY:
        return MAX_WAITERS
    return max(MIN_WAITERS, min(soft // WAITER_SHARE, MAX_WAITERS))


class WaitSlots:
    """The polls of this process that may wait at once. Entered and left on the event loop only (no lock)."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.taken = 0

    @contextmanager
    def held(self) -> Iterator[bool]:
        """True, holding a slot for the block, when one is free; False (the cap is reached) otherwise."""
        if self.taken >= self.limit:
            yield False
            return
        self.taken += 1
        try:
            yield True
        finally:
            self.taken -= 1


# One for the process: descriptors are the process's, so the HTTP API and MCP at /mcp share the cap.
WAITERS: Final = WaitSlots(waiter_cap())


class HighWater:
    """The newest message event id, read at most once per interval however many polls wait on it."""

    def __init__(self, read: Callable[[], int], interval_s: float = CHECK_INTERVAL_S) -> None:
        self._read = read
        self._interval = interval_s
        self._value = 0
        self._at = float("-inf")
        # Imported here, not at the top: memesh-mcp's early front decides on wait_ms before anyio is loaded.
        import anyio

        self._lock = anyio.Lock()

    async def current(self) -> int:
        import anyio.to_thread

        async with self._lock:
            if time.monotonic() - self._at >= self._interval:
                self._value = await anyio.to_thread.run_sync(self._read)
                self._at = time.monotonic()
            return self._value


async def call_waiting(run: Callable[[], Awaitable[Any]], wait: int, high_water: HighWater) -> Any:
    """`run()` now; while it finds no event and `wait` ms have not passed, again each time a new event exists."""
    import anyio

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
