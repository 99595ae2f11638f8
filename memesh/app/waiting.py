"""A message poll's `wait_ms`: look again only when a new message event exists, until one arrives or time runs out.

The operation itself answers at once. Waiting is the caller's: the HTTP and MCP servers wait asynchronously (no
thread per waiting client: each waiter sleeps on the event loop, and one shared read of the newest event id tells
every waiter of a process whether to poll again); the CLI's `watch` waits in its own process. A poll run again with
the same arguments reads from the same cursor position, so nothing between two looks is missed.

When to look again is the process's `Wakeups`: on PostgreSQL the notifications a send's commit makes, heard by one
listening connection per process (memesh.store.postgres_listen), with a slow safety tick — no waiter polls the
database, and an idle process reads the newest event id once per tick while something waits; on SQLite (a local
file, where a read costs no server) and behind a transaction pooler (where LISTEN cannot hold), a clock tick.

How many polls of one process may wait at once is capped (`WAITERS`): over HTTP each waiting poll holds a socket,
and at a 1024-descriptor limit 1100 waiting polls left none for a database connection, so unrelated requests failed.
A poll over the cap is answered at once with what is there, exactly as the same poll with wait_ms 0 would be: its
events if any (a refusal would withhold them), and it never becomes an error a client has to handle.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, Final, Protocol

from returns.result import Result, Success

from memesh.errors import MemeshError

if TYPE_CHECKING:
    from pathlib import Path

CHECK_INTERVAL_S = 0.02  # SQLite: how stale the newest-event id may be, the wake latency a waiting poll adds
# PostgreSQL behind a transaction pooler (no LISTEN there): one shared read of the newest event id per process every
# half second while something waits — 2 queries/s per waiting process against the ~44 of the SQLite tick.
POOLED_INTERVAL_S = 0.5
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


class Wakeups(Protocol):
    """What tells the waiting polls of a process that a new message event may exist: its generation grows each
    time, and subscribers are called then (from any thread)."""

    @property
    def generation(self) -> int: ...

    def subscribe(self, callback: Callable[[], None]) -> Callable[[], None]: ...

    def longest_sleep(self) -> float: ...


class Ticks:
    """Wakeups by the clock alone, every `interval_s` (SQLite; PostgreSQL behind a transaction pooler, where a
    LISTEN cannot hold): the generation is the tick, and nothing is called back."""

    def __init__(self, interval_s: float) -> None:
        self.interval_s = interval_s

    @property
    def generation(self) -> int:
        return int(time.monotonic() / self.interval_s)

    def subscribe(self, callback: Callable[[], None]) -> Callable[[], None]:
        return lambda: None

    def longest_sleep(self) -> float:
        """Until the next tick."""
        return max(self.interval_s - time.monotonic() % self.interval_s, 0.001)


def database_pooler() -> str | None:
    """The pooler in front of the database, as MEMESH_DATABASE_POOLER names it ("transaction"), or None (a bad value
    is the store's to refuse, when it opens)."""
    from memesh import paths

    try:
        return paths.database_pooler()
    except paths.DatabaseSettingError:
        return None


def wakeups_for(where: Path | str | None) -> Wakeups:
    """How the waiting polls of this process learn of new events in the database `where` (a file, a URL, or None
    for one that cannot be named): PostgreSQL's notifications through the process's one listening connection,
    the shared tick of POOLED_INTERVAL_S behind a transaction pooler, SQLite's tick of CHECK_INTERVAL_S."""
    if isinstance(where, str):
        if database_pooler() == "transaction":
            return Ticks(POOLED_INTERVAL_S)
        from memesh.store.postgres_listen import listener_for

        return listener_for(where, pooled_tick_s=POOLED_INTERVAL_S)
    return Ticks(CHECK_INTERVAL_S)


class HighWater:
    """The newest message event id, read once per generation of the process's wakeups however many polls wait."""

    def __init__(self, read: Callable[[], int], wakeups: Callable[[], Wakeups] | None = None) -> None:
        self._read = read
        self._make = wakeups if wakeups is not None else (lambda: Ticks(CHECK_INTERVAL_S))
        self._wakeups: Wakeups | None = None  # made on first use: a listener starts only when a poll waits
        self._value = 0
        self._read_in: int | None = None  # the generation the value was read in
        # Imported here, not at the top: memesh-mcp's early front decides on wait_ms before anyio is loaded.
        import anyio

        self._lock = anyio.Lock()

    @property
    def wakeups(self) -> Wakeups:
        if self._wakeups is None:
            self._wakeups = self._make()
        return self._wakeups

    async def current(self) -> int:
        """The newest event id as read since the current generation began."""
        import anyio.to_thread

        async with self._lock:
            mark = self.wakeups.generation
            if self._read_in != mark:
                self._value = await anyio.to_thread.run_sync(self._read)
                self._read_in = mark
            return self._value

    async def past(self, seen: int, deadline: float) -> int:
        """The newest event id once it is past `seen`; at `deadline` (time.monotonic) the last one read."""
        wakeups = self.wakeups
        while True:
            mark = wakeups.generation
            newest = await self.current()
            remaining = deadline - time.monotonic()
            if newest > seen or remaining <= 0:
                return newest
            await _sleep_past(wakeups, mark, remaining)


async def _sleep_past(wakeups: Wakeups, mark: int, limit: float) -> None:
    """Sleep on the event loop until the generation passes `mark`, or `limit` seconds."""
    import asyncio

    import anyio

    loop = asyncio.get_running_loop()
    woken = asyncio.Event()

    def wake() -> None:  # from the listener's thread: the event is the loop's to set
        loop.call_soon_threadsafe(woken.set)

    unsubscribe = wakeups.subscribe(wake)
    try:
        if wakeups.generation != mark:  # it grew before we subscribed
            return
        with anyio.move_on_after(min(limit, wakeups.longest_sleep())):
            await woken.wait()
    finally:
        unsubscribe()


def _sleep_past_sync(wakeups: Wakeups, mark: int, limit: float) -> None:
    """The same in a thread of its own: block until the generation passes `mark`, or `limit` seconds."""
    woken = threading.Event()
    unsubscribe = wakeups.subscribe(woken.set)
    try:
        if wakeups.generation == mark:
            woken.wait(min(limit, wakeups.longest_sleep()))
    finally:
        unsubscribe()


async def call_waiting(run: Callable[[], Awaitable[Any]], wait: int, high_water: HighWater) -> Any:
    """`run()` now; while it finds no event and `wait` ms have not passed, again each time a new event exists."""
    if wait <= 0:
        return await run()
    deadline = time.monotonic() + wait / 1000
    seen = await high_water.current()  # read before the first poll, so an event landing in between wakes us
    result = await run()
    while _empty(result):
        newest = await high_water.past(seen, deadline)
        if newest <= seen:
            return _timed_out(result)
        seen = newest
        result = await run()
    return result


def call_waiting_sync(
    run: Callable[[], Result[Any, MemeshError]],
    wait: int,
    read_high_water: Callable[[], int],
    wakeups: Callable[[], Wakeups] | None = None,
) -> Result[Any, MemeshError]:
    """The same wait in a process of its own (the CLI): sleep until woken, look at the newest event id, poll again
    if it grew."""
    if wait <= 0:
        return run()
    source = wakeups() if wakeups is not None else Ticks(CHECK_INTERVAL_S)  # made only for a wait: a listener
    deadline = time.monotonic() + wait / 1000
    mark = source.generation
    seen = read_high_water()
    result = run()
    while _empty(result):
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return _timed_out(result)
        _sleep_past_sync(source, mark, remaining)
        if source.generation == mark:
            continue  # the deadline, or a sleep cut short: nothing new to look at
        mark = source.generation
        newest = read_high_water()
        if newest > seen:
            seen = newest
            result = run()
    return result
