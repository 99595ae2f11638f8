"""What the HTTP handlers share: the database, one connection per worker thread, opened on first use.

SQLite in WAL mode lets readers run beside a writer, and each write takes the write lock itself (`BEGIN IMMEDIATE`
with a 30 s busy timeout), so requests run concurrently on their own connections instead of queueing behind one.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import anyio.to_thread
from returns.result import Failure, Result

from memesh.app.database import Database, StoreError, open_database
from memesh.app.dispatch import guarded
from memesh.app.waiting import HighWater
from memesh.errors import MemeshError

T = TypeVar("T")


class Runtime:
    """The database of one listener, and how a handler runs work on it off the event loop."""

    def __init__(self, db_path: Path | None) -> None:
        self.db_path = db_path
        self._local = threading.local()
        self._lock = threading.Lock()
        self._open: list[tuple[threading.Thread, Database]] = []
        self._generation = 0
        # Waiting message polls look again only when the newest event id grows, read once for all of them.
        self.high_water = HighWater(self._newest_event)

    def _store(self) -> Database:
        local = self._local
        if getattr(local, "generation", -1) != self._generation or getattr(local, "store", None) is None:
            store = open_database(self.db_path)  # StoreError when it will not open: translated by `guarded`
            with self._lock:
                # A worker thread idle for a while ends (anyio stops it) and a new one opens its own connection:
                # close the connections of threads that have ended, so a long-running server does not gather them.
                ended = [kept for thread, kept in self._open if not thread.is_alive()]
                self._open = [(thread, kept) for thread, kept in self._open if thread.is_alive()]
                self._open.append((threading.current_thread(), store))
                local.store, local.generation = store, self._generation
            for kept in ended:
                kept.close()
        stored: Database = local.store
        return stored

    def _on_store(self, work: Callable[[Database], Result[T, MemeshError]]) -> Result[T, MemeshError]:
        try:
            store = self._store()
        except StoreError as exc:
            print(f"MeMesh HTTP: {exc}", file=sys.stderr)  # the log (this machine) names the file; the client not
            return Failure(exc.error)
        return guarded(lambda: work(store))

    async def run(self, work: Callable[[Database], Result[T, MemeshError]]) -> Result[T, MemeshError]:
        """`work` on this thread's connection, in a worker thread; database failures as the spec's codes."""
        return await anyio.to_thread.run_sync(self._on_store, work)

    def _newest_event(self) -> int:
        try:
            return self._store().message_high_water()
        except Exception:  # a database that will not open: the poll itself reports why
            return 0

    def close(self) -> None:
        """Close every connection (a later request opens a fresh one)."""
        with self._lock:
            stores, self._open = self._open, []
            self._generation += 1
        for _thread, store in stores:
            store.close()
