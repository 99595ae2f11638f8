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

from anthropic.lib.tools import BetaAbstractMemoryTool, ToolError
from anthropic.types.beta import (
    BetaCacheControlEphemeralParam,
    BetaMemoryTool20250818CreateCommand,
    BetaMemoryTool20250818DeleteCommand,
    BetaMemoryTool20250818InsertCommand,
    BetaMemoryTool20250818RenameCommand,
    BetaMemoryTool20250818StrReplaceCommand,
    BetaMemoryTool20250818ViewCommand,
)
from pydantic import BaseModel

from memesh.memory_command import handle_memory_command

__all__ = ["MemeshMemoryTool"]


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
        result = handle_memory_command(command, db_path=self._db_path)
        if result["is_error"]:
            raise ToolError(result["content"])
        return result["content"]

    def _model(self, command: BaseModel) -> str:
        fields: dict[str, Any] = command.model_dump(exclude_none=True)
        return self._run(fields)

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
