"""A connection per worker thread, for a server whose calls run side by side in worker threads (MCP and HTTP).

SQLite in WAL mode lets readers run beside a writer, and each write takes the write lock itself (`BEGIN IMMEDIATE`
with the busy timeout), so calls run concurrently on their own connections instead of queueing behind one.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Generic, TypeVar

from memesh.app.database import Database

S = TypeVar("S", bound=Database)


class ThreadConnections(Generic[S]):
    """This thread's connection from `opener`, opened on first use (a StoreError from it is raised to the caller and
    the next call tries again); `close` closes every one, and a later call opens a fresh one."""

    def __init__(self, opener: Callable[[], S]) -> None:
        self._opener = opener
        self._local = threading.local()
        self._lock = threading.Lock()  # guards the list of open connections and the generation
        self._open: list[tuple[threading.Thread, S]] = []
        self._generation = 0  # tells a thread its connection was closed by `close`

    def get(self) -> S:
        local = self._local
        store: S | None = getattr(local, "store", None)
        if store is not None and getattr(local, "generation", -1) == self._generation:
            return store
        store = self._opener()
        with self._lock:
            # A worker thread idle for a while ends (anyio stops it) and a new one opens its own connection: close
            # the connections of threads that have ended, so a long-running server does not gather them.
            ended = [kept for thread, kept in self._open if not thread.is_alive()]
            self._open = [(thread, kept) for thread, kept in self._open if thread.is_alive()]
            self._open.append((threading.current_thread(), store))
            local.store, local.generation = store, self._generation
        for kept in ended:
            kept.close()
        return store

    def close(self) -> None:
        with self._lock:
            stores, self._open = self._open, []
            self._generation += 1
        for _thread, store in stores:
            store.close()
