"""What the HTTP handlers share: the database, one connection per worker thread (`memesh.app.connections`)."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import anyio.to_thread
from returns.result import Failure, Result

from memesh.app import dispatch
from memesh.app.database import Database, StoreError
from memesh.app.dispatch import guarded
from memesh.app.registry import Op
from memesh.app.resources import Resources
from memesh.app.waiting import HighWater
from memesh.context import CallContext
from memesh.errors import MemeshError

T = TypeVar("T")


def _logged(exc: StoreError) -> StoreError:
    print(f"MeMesh HTTP: {exc}", file=sys.stderr)  # the log (this machine) names the file; the client is told why
    return exc


class Runtime:
    """The database of one listener, and how a handler runs work on it off the event loop."""

    def __init__(self, db_path: Path | None) -> None:
        self.db_path = db_path
        self.resources = Resources.pooled(db_path, on_open_failure=_logged)
        # Waiting message polls look again only when the newest event id grows, read once for all of them.
        self.high_water = HighWater(self._newest_event)

    def _store(self) -> Database:
        """This worker thread's connection; a StoreError when it will not open (translated by `guarded`)."""
        return self.resources.store

    def _on_store(self, work: Callable[[Database], Result[T, MemeshError]]) -> Result[T, MemeshError]:
        try:
            store = self._store()
        except StoreError as exc:
            print(f"MeMesh HTTP: {exc}", file=sys.stderr)  # the log (this machine) names the file; the client not
            return Failure(exc.error)
        return guarded(lambda: work(store))

    async def call(self, op: Op[Any, Any, T], arguments: Any, ctx: CallContext) -> Result[T, MemeshError]:
        """`op` through the door on this listener's resources, in a worker thread (its own connection)."""
        return await anyio.to_thread.run_sync(lambda: dispatch.run(op, self.resources, arguments, ctx))

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
        self.resources.close()
