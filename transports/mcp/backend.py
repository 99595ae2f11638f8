"""The MCP server's store, as the SDK's handlers see it: `calls.Caller`'s answers as CallToolResults."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from mcp import types
from returns.result import Result

from memesh.app.resources import Resources
from memesh.app.waiting import HighWater
from memesh.context import CallContext
from memesh.errors import MemeshError
from memesh.transports.mcp.calls import Caller, Wire

if TYPE_CHECKING:
    from memesh.app.updates import Notifier, StaleCheck


class Backend:
    """Runs tool calls through `Caller` (a connection per worker thread), answering CallToolResults.

    `caller`: one the early front already answered calls with (early.py), so the process keeps one set of
    connections and one update notice."""

    def __init__(
        self,
        path: Path | str | None = None,
        notifier: Notifier | None = None,
        stale: StaleCheck | None = None,
        resources: Resources | None = None,
        *,
        caller: Caller | None = None,
    ) -> None:
        self.caller = caller if caller is not None else Caller(path, notifier, stale, resources)

    @property
    def resources(self) -> Resources:
        return self.caller.resources

    @property
    def high_water(self) -> HighWater:
        return self.caller.high_water

    def serves(self, database: str) -> bool:
        """Whether this backend's database is `database` (a resolved path): see `Caller.serves`."""
        return self.caller.serves(database)

    def open(self) -> None:
        """Open the store now (a failure is kept, not raised) and start the update check."""
        self.caller.open()

    def call(self, name: str, arguments: dict[str, Any] | None, ctx: CallContext) -> types.CallToolResult:
        """Run tool `name` and map its Result; never raises (a failure of any kind is an isError result)."""
        return self.answer(name, self.run(name, arguments, ctx))

    def run(self, name: str, arguments: dict[str, Any] | None, ctx: CallContext) -> Result[Any, MemeshError] | Wire:
        """The tool's Result, or the isError answer when the store or the tool itself broke."""
        return self.caller.run(name, arguments, ctx)

    def answer(self, name: str, outcome: Result[Any, MemeshError] | Wire) -> types.CallToolResult:
        return types.CallToolResult.model_validate(self.caller.wire_answer(name, outcome))

    def close(self) -> None:
        """Close every connection opened (a later call opens a fresh one)."""
        self.caller.close()
