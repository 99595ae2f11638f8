"""The single list of tools: name → schema files, behaviour hints and operation. Every transport iterates it, so a
tool cannot be added to one surface and forgotten on another."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from returns.result import Result

from memesh.context import CallContext
from memesh.errors import MemeshError
from memesh.ops.export import export
from memesh.ops.forget import forget
from memesh.ops.import_bundle import import_bundle
from memesh.ops.learn import learn
from memesh.ops.recall import recall
from memesh.ops.remember import remember
from memesh.ops.task_state import task_state
from memesh.store.sqlite import SqliteStore

Operation = Callable[[SqliteStore, Any, CallContext], Result[Any, MemeshError]]


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
    Tool("remember", "Remember", remember, read_only=False, destructive=False, idempotent=True),
    # recall only reads memories (it does count accesses, which is bookkeeping, not a change of content).
    Tool("recall", "Recall", recall, read_only=True, destructive=False, idempotent=True),
    # forget hides a memory or removes an observation: a loss from the caller's point of view.
    Tool("forget", "Forget", forget, read_only=False, destructive=True, idempotent=True),
    Tool("export", "Export memories", export, read_only=True, destructive=False, idempotent=True),
    # import with overwrite replaces content (kept in history): destructive; the same bundle twice adds nothing.
    Tool("import", "Import memories", import_bundle, read_only=False, destructive=True, idempotent=True),
    Tool("learn", "Learn from a mistake", learn, read_only=False, destructive=False, idempotent=True),
    # task_state can clear a field the owner stated ("" clears), so a write can lose information.
    Tool("task_state", "Task state", task_state, read_only=False, destructive=True, idempotent=True, http_post=False),
)

BY_NAME = {tool.name: tool for tool in TOOLS}
