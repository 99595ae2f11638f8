"""The MCP server's store: a connection per worker thread (`memesh.app.connections`), so tool calls run side by
side — one shared connection behind a lock made a message send waiting up to 10 s for a host hold up every recall."""

from __future__ import annotations

import logging
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mcp import types
from returns.result import Result

from memesh.app import dispatch
from memesh.app.database import StoreError
from memesh.app.resources import Resources
from memesh.app.waiting import HighWater
from memesh.context import CallContext
from memesh.errors import MemeshError
from memesh.transports.mcp.results import short_reason, to_call_result, tool_error, unexpected_failure

if TYPE_CHECKING:
    from memesh.app.updates import Notifier, StaleCheck

log = logging.getLogger("memesh.mcp")


class Backend:
    """Runs tool calls on the worker thread's own connection to the store, and maps their Results."""

    def __init__(
        self,
        path: Path | None = None,
        notifier: Notifier | None = None,
        stale: StaleCheck | None = None,
        resources: Resources | None = None,
    ) -> None:
        self._path = path
        # The once-per-process update notice, computed off the call path (None: no update checks), and the check
        # that this process still runs the version installed on disk.
        self._notifier = notifier
        self._stale = stale
        # `resources`: the process's own, when the server shares them (memesh serve's HTTP API and /mcp).
        self.resources = resources if resources is not None else Resources.pooled(path)
        self._open_error = ""
        # A waiting message poll looks again only when the newest event id grows (memesh.app.waiting).
        self.high_water = HighWater(self._newest_event)

    def serves(self, database: str) -> bool:
        """Whether this backend's database is `database` (a resolved path): a backend handed another file (a test,
        the answer recorder) must not run hook events for the one the environment names."""
        return self._path is None or os.path.realpath(self._path) == database

    def open(self) -> None:
        """Open the store now, so a bad database path shows in the log at start; a failure is kept, not raised.
        The update check starts here too, on its own thread."""
        if self._notifier is not None:
            self._notifier.start()
        self._ensure_store()

    def _ensure_store(self) -> object | None:
        """This thread's connection, opened on first use. A failed open is retried on the next call: the folder may
        only have been missing for a moment."""
        try:
            return self.resources.store
        except StoreError as exc:  # the log (stderr, this machine) names the file; the client is told why only
            self._open_error = exc.reason
            log.error("%s", exc)
            return None
        except Exception as exc:  # whatever else goes wrong opening it, the server stays up to say so
            self._open_error = short_reason(exc)
            log.exception("cannot open the database")
            return None

    def call(self, name: str, arguments: dict[str, Any] | None, ctx: CallContext) -> types.CallToolResult:
        """Run tool `name` and map its Result; never raises (a failure of any kind is an isError result)."""
        return self.answer(name, self.run(name, arguments, ctx))

    def run(
        self, name: str, arguments: dict[str, Any] | None, ctx: CallContext
    ) -> Result[Any, MemeshError] | types.CallToolResult:
        """The tool's Result, or the isError answer when the store or the tool itself broke."""
        store = self._ensure_store()
        if store is None:
            return tool_error(f"MeMesh cannot use its database: {self._open_error}")
        try:
            return dispatch.call(name, self.resources, arguments, ctx, nulls_mean_absent=True)
        except Exception as exc:
            log.exception("tool %r raised", name)
            return unexpected_failure(name, exc)

    def answer(self, name: str, outcome: Result[Any, MemeshError] | types.CallToolResult) -> types.CallToolResult:
        if isinstance(outcome, types.CallToolResult):
            return outcome
        try:
            answer = to_call_result(outcome, name)
        except Exception as exc:
            log.exception("tool %r returned a result that cannot be sent", name)
            return unexpected_failure(name, exc)
        # The notice rides as a second content item on a successful result: content[0] stays the tool's payload.
        if not answer.is_error:
            notice = self._notifier.take() if self._notifier is not None else None
            notice = notice or (self._stale.notice() if self._stale is not None else None)
            if notice:
                answer.content.append(types.TextContent(type="text", text=notice))
        return answer

    def _newest_event(self) -> int:
        if self._ensure_store() is None:
            return 0
        try:
            return self.resources.store.message_high_water()
        except Exception:  # a database that broke meanwhile: the poll itself reports why
            return 0

    def close(self) -> None:
        """Close every connection opened (a later call opens a fresh one)."""
        self.resources.close()
