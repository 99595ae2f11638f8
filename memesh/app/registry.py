"""The single list of tools: name → schema files, behaviour hints and operation. Every transport iterates it, so a
tool cannot be added to one surface and forgotten on another."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from returns.result import Result

from memesh.context import CallContext
from memesh.errors import MemeshError
from memesh.store.sqlite import SqliteStore

Operation = Callable[[SqliteStore, Any, CallContext], Result[Any, MemeshError]]


@dataclass
class LazyOperation:
    """The operation `function` of module `module`, imported on its first call.

    A command runs one tool, and importing every operation (with the core rules each one pulls in) would make
    every CLI command pay for all of them at start-up; `tests/test_registry_lazy.py` resolves each one.
    """

    module: str
    function: str
    _resolved: Callable[..., Result[Any, MemeshError]] | None = field(default=None, repr=False, compare=False)

    def resolve(self) -> Callable[..., Result[Any, MemeshError]]:
        """The operation itself, imported now if it was not yet."""
        if self._resolved is None:
            self._resolved = getattr(importlib.import_module(self.module), self.function)
        return self._resolved

    def __call__(self, store: SqliteStore, request: Any, *, ctx: CallContext) -> Result[Any, MemeshError]:
        return self.resolve()(store, request, ctx=ctx)


def _op(name: str) -> LazyOperation:
    """The function `name` of `memesh/ops/<name>.py`."""
    return LazyOperation(f"memesh.ops.{name}", name)


@dataclass(frozen=True)
class Tool:
    """One tool: its schemas (names under schemas/), the hints MCP clients read, and the operation it runs."""

    name: str
    title: str
    operation: Callable[..., Result[Any, MemeshError]]
    read_only: bool
    destructive: bool
    idempotent: bool
    # Whether the HTTP API offers the tool as POST /v1/<name> (task_state is read there as GET /v1/task-state).
    http_post: bool = True

    @property
    def input_schema(self) -> str:
        return f"tools/{self.name}.input"

    @property
    def output_schema(self) -> str:
        return f"tools/{self.name}.output"

    def run(self, store: SqliteStore, request: Any, ctx: CallContext) -> Result[Any, MemeshError]:
        return self.operation(store, request, ctx=ctx)


TOOLS: tuple[Tool, ...] = (
    # remember writes and can archive (supersedes) but never deletes; a repeat of the same call appends nothing.
    Tool("remember", "Remember", _op("remember"), read_only=False, destructive=False, idempotent=True),
    # recall only reads memories (it does count accesses, which is bookkeeping, not a change of content).
    Tool("recall", "Recall", _op("recall"), read_only=True, destructive=False, idempotent=True),
    # forget hides a memory or removes an observation: a loss from the caller's point of view.
    Tool("forget", "Forget", _op("forget"), read_only=False, destructive=True, idempotent=True),
    Tool("export", "Export memories", _op("export"), read_only=True, destructive=False, idempotent=True),
    # import with overwrite replaces content (kept in history): destructive; the same bundle twice adds nothing.
    Tool("import", "Import memories", _op("import_bundle"), read_only=False, destructive=True, idempotent=True),
    Tool("learn", "Learn from a mistake", _op("learn"), read_only=False, destructive=False, idempotent=True),
    # task_state can clear a field the owner stated ("" clears), so a write can lose information.
    Tool(
        "task_state",
        "Task state",
        _op("task_state"),
        read_only=False,
        destructive=True,
        idempotent=True,
        http_post=False,
    ),
    # user_patterns only reads; over MCP it answers in markdown, over HTTP it is read as GET /v1/patterns.
    Tool(
        "user_patterns",
        "User work patterns",
        _op("user_patterns"),
        read_only=True,
        destructive=False,
        idempotent=True,
        http_post=False,
    ),
)

BY_NAME = {tool.name: tool for tool in TOOLS}
