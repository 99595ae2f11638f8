"""`MemeshMemoryTool`: the Anthropic SDK's memory tool with MeMesh as its storage, for the SDK's tool runner.

    from anthropic import Anthropic
    from memesh.memory_tool import MemeshMemoryTool

    runner = Anthropic().beta.messages.tool_runner(model=..., max_tokens=2048, messages=[...],
                                                   tools=[MemeshMemoryTool()])

Needs the `anthropic` package (`pip install 'memesh[anthropic]'`); `import memesh` never does. A refusal raises the
SDK's `ToolError`, which the runner returns to Claude as an `is_error` tool result.
"""

from __future__ import annotations

import os
from typing import Any

from anthropic.lib.tools import BetaAbstractMemoryTool, BetaAsyncAbstractMemoryTool, ToolError
from anthropic.types.beta import (
    BetaCacheControlEphemeralParam,
    BetaMemoryTool20250818CreateCommand,
    BetaMemoryTool20250818DeleteCommand,
    BetaMemoryTool20250818InsertCommand,
    BetaMemoryTool20250818RenameCommand,
    BetaMemoryTool20250818StrReplaceCommand,
    BetaMemoryTool20250818ViewCommand,
)
from anyio.to_thread import run_sync
from pydantic import BaseModel

from memesh.app.memory_tool import handle_memory_command

__all__ = ["MemeshAsyncMemoryTool", "MemeshMemoryTool"]


def _perform(command: object, db_path: str | os.PathLike[str] | None) -> str:
    result = handle_memory_command(command, db_path=db_path)
    if result["is_error"]:
        raise ToolError(result["content"])
    return result["content"]


def _fields(command: BaseModel) -> dict[str, Any]:
    fields: dict[str, Any] = command.model_dump(exclude_none=True)
    return fields


class MemeshMemoryTool(BetaAbstractMemoryTool):
    """Each command is checked and performed by `handle_memory_command`, against the CLI's database or `db_path`."""

    def __init__(
        self,
        *,
        db_path: str | os.PathLike[str] | None = None,
        cache_control: BetaCacheControlEphemeralParam | None = None,
    ) -> None:
        super().__init__(cache_control=cache_control)
        self._db_path = db_path

    def call(self, input: object) -> str:
        # The raw tool input, not the SDK's unchecked model of it: every field is validated by MeMesh itself.
        return self._run(input)

    def _run(self, command: object) -> str:
        return _perform(command, self._db_path)

    def _model(self, command: BaseModel) -> str:
        return self._run(_fields(command))

    def view(self, command: BetaMemoryTool20250818ViewCommand) -> str:
        return self._model(command)

    def create(self, command: BetaMemoryTool20250818CreateCommand) -> str:
        return self._model(command)

    def str_replace(self, command: BetaMemoryTool20250818StrReplaceCommand) -> str:
        return self._model(command)

    def insert(self, command: BetaMemoryTool20250818InsertCommand) -> str:
        return self._model(command)

    def delete(self, command: BetaMemoryTool20250818DeleteCommand) -> str:
        return self._model(command)

    def rename(self, command: BetaMemoryTool20250818RenameCommand) -> str:
        return self._model(command)


class MemeshAsyncMemoryTool(BetaAsyncAbstractMemoryTool):
    """`MemeshMemoryTool` for the SDK's async tool runner; each command runs in a worker thread (SQLite blocks)."""

    def __init__(
        self,
        *,
        db_path: str | os.PathLike[str] | None = None,
        cache_control: BetaCacheControlEphemeralParam | None = None,
    ) -> None:
        super().__init__(cache_control=cache_control)
        self._db_path = db_path

    async def call(self, input: object) -> str:
        return await self._run(input)

    async def _run(self, command: object) -> str:
        return await run_sync(_perform, command, self._db_path)

    async def view(self, command: BetaMemoryTool20250818ViewCommand) -> str:
        return await self._run(_fields(command))

    async def create(self, command: BetaMemoryTool20250818CreateCommand) -> str:
        return await self._run(_fields(command))

    async def str_replace(self, command: BetaMemoryTool20250818StrReplaceCommand) -> str:
        return await self._run(_fields(command))

    async def insert(self, command: BetaMemoryTool20250818InsertCommand) -> str:
        return await self._run(_fields(command))

    async def delete(self, command: BetaMemoryTool20250818DeleteCommand) -> str:
        return await self._run(_fields(command))

    async def rename(self, command: BetaMemoryTool20250818RenameCommand) -> str:
        return await self._run(_fields(command))
