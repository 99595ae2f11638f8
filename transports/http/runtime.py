"""What the HTTP handlers share: the database, one connection per worker thread (`memesh.app.connections`)."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import anyio.to_thread
from returns.result import Failure, Result

from memesh.app.connections import ThreadConnections
from memesh.app.database import Database, StoreError, open_database
from memesh.app.dispatch import guarded
from memesh.app.waiting import HighWater
from memesh.errors import MemeshError

T = TypeVar("T")


class Runtime:
    """The database of one listener, and how a handler runs work on it off the event loop."""

    def __init__(self, db_path: Path | None) -> None:
        self.db_path = db_path
        self._connections = ThreadConnections(lambda: open_database(self.db_path))
        # Waiting message polls look again only when the newest event id grows, read once for all of them.
        self.high_water = HighWater(self._newest_event)

    def _store(self) -> Database:
        """This worker thread's connection; a StoreError when it will not open (translated by `guarded`)."""
        return self._connections.get()

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
        self._connections.close()
