"""What the HTTP endpoints share: the listener's resources (a database connection per worker thread, the update
lookup it was handed) and how an operation runs on them off the event loop."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import anyio.to_thread
from returns.result import Result

from memesh.app import dispatch
from memesh.app.database import StoreError
from memesh.app.registry import Op
from memesh.app.resources import Resources
from memesh.app.waiting import HighWater
from memesh.context import CallContext
from memesh.errors import MemeshError

if TYPE_CHECKING:
    from memesh.settings import Settings

T = TypeVar("T")


def _logged(exc: StoreError) -> StoreError:
    print(f"MeMesh HTTP: {exc}", file=sys.stderr)  # the log (this machine) names the file; the client is told why
    return exc


class Runtime:
    """The resources of one listener, and how an endpoint runs an operation on them in a worker thread."""

    def __init__(
        self,
        db_path: Path | str | None,
        update_fetch: Callable[[], str | None] | None = None,
        settings: Settings | None = None,
    ) -> None:
        self.db_path = db_path
        self.resources = Resources.pooled(
            db_path, on_open_failure=_logged, update_fetch=update_fetch, settings=settings
        )
        # Waiting message polls look again only when the newest event id grows, read once for all of them each time
        # the process's wakeups say it may have (PostgreSQL's notifications, else the clock).
        self.high_water = HighWater(self._newest_event, self.resources.message_wakeups)

    async def call(self, op: Op[Any, Any, T], arguments: Any, ctx: CallContext) -> Result[T, MemeshError]:
        """`op` through the door on this listener's resources, in a worker thread (its own connection)."""
        return await anyio.to_thread.run_sync(lambda: dispatch.run(op, self.resources, arguments, ctx))

    def _newest_event(self) -> int:
        try:
            return self.resources.store.message_high_water()
        except Exception:  # a database that will not open: the poll itself reports why
            return 0

    def close(self) -> None:
        """Close every connection (a later request opens a fresh one)."""
        self.resources.close()
