"""The MCP server's one store connection, shared by tool calls that run one at a time in worker threads."""

from __future__ import annotations

import logging
import threading
from pathlib import Path
from typing import Any

from mcp import types
from returns.result import Result

from memesh.app import dispatch
from memesh.app.database import Database as SqliteStore
from memesh.app.database import StoreError
from memesh.app.database import open_database as open_store
from memesh.app.waiting import HighWater
from memesh.context import CallContext
from memesh.errors import MemeshError
from memesh.transports.mcp.results import short_reason, to_call_result, tool_error, unexpected_failure

log = logging.getLogger("memesh.mcp")


class Backend:
    """Opens the store once and runs tool calls on it; a lock keeps the single connection to one call at a time."""

    def __init__(self, path: Path | None = None) -> None:
        self._path = path
        # One connection, one transaction at a time: SqliteStore tracks its transaction depth without locking.
        self._lock = threading.Lock()
        self._store: SqliteStore | None = None
        self._open_error = ""
        # A waiting message poll looks again only when the newest event id grows (memesh.app.waiting).
        self.high_water = HighWater(self._newest_event)

    def open(self) -> None:
        """Open the store now, so a bad database path shows in the log at start; a failure is kept, not raised."""
        with self._lock:
            self._ensure_store()

    def _ensure_store(self) -> SqliteStore | None:
        # A failed open is retried on the next call: the folder may only have been missing for a moment.
        if self._store is None:
            try:
                self._store = open_store(self._path)
            except StoreError as exc:  # the log (stderr, this machine) names the file; the client is told why only
                self._open_error = exc.reason
                log.error("%s", exc)
            except Exception as exc:  # whatever else goes wrong opening it, the server stays up to say so
                self._open_error = short_reason(exc)
                log.exception("cannot open the database")
        return self._store

    def call(self, name: str, arguments: dict[str, Any] | None, ctx: CallContext) -> types.CallToolResult:
        """Run tool `name` and map its Result; never raises (a failure of any kind is an isError result)."""
        return self.answer(name, self.run(name, arguments, ctx))

    def run(
        self, name: str, arguments: dict[str, Any] | None, ctx: CallContext
    ) -> Result[Any, MemeshError] | types.CallToolResult:
        """The tool's Result, or the isError answer when the store or the tool itself broke."""
        with self._lock:
            store = self._ensure_store()
            if store is None:
                return tool_error(f"MeMesh cannot use its database: {self._open_error}")
            try:
                return dispatch.call(name, store, arguments, ctx, nulls_mean_absent=True)
            except Exception as exc:
                log.exception("tool %r raised", name)
                return unexpected_failure(name, exc)

    def answer(self, name: str, outcome: Result[Any, MemeshError] | types.CallToolResult) -> types.CallToolResult:
        if isinstance(outcome, types.CallToolResult):
            return outcome
        try:
            return to_call_result(outcome)
        except Exception as exc:
            log.exception("tool %r returned a result that cannot be sent", name)
            return unexpected_failure(name, exc)

    def _newest_event(self) -> int:
        with self._lock:
            store = self._ensure_store()
            return store.message_high_water() if store is not None else 0

    def close(self) -> None:
        """Close the connection, if one was opened."""
        with self._lock:
            if self._store is not None:
                self._store.close()
                self._store = None
