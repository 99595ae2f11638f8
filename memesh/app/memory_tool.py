"""The Anthropic memory tool for applications that call the Messages API directly: `MEMORY_TOOL_DEFINITION` goes in
the request's `tools`, and `handle_memory_command` performs each `memory` tool call Claude makes.

It is not one of the MCP tools and has no HTTP route or CLI command: the MCP surface serves an agent that speaks
MeMesh, this serves an application that speaks only the Messages API.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Final, TypedDict

from returns.result import Failure, Success

from memesh.core.memory_commands import MEMORY_TOOL_DEFINITION

if TYPE_CHECKING:
    from memesh.store.errors import StoreError

__all__ = ["MEMORY_TOOL_DEFINITION", "SOURCE_HOST", "MemoryToolResult", "handle_memory_command"]

SOURCE_HOST: Final = "anthropic-memory-tool"  # metadata.provenance.source_host of the memories it creates


class MemoryToolResult(TypedDict):
    """What goes in the `tool_result` block: `{"type": "tool_result", "tool_use_id": block.id, **result}`."""

    content: str
    is_error: bool


def _error(text: str) -> MemoryToolResult:
    return {"content": text, "is_error": True}


def handle_memory_command(command: object, *, db_path: str | os.PathLike[str] | None = None) -> MemoryToolResult:
    """Perform one `memory` tool call: `command` is the tool_use block's `input`, untrusted and checked field by
    field by the operation. The database is the CLI's (`MEMESH_DB_PATH`, else `~/.memesh/knowledge-graph.db`) unless
    `db_path` names one. A refusal is `is_error: True` with the reason; nothing is written then. No result names a
    path of this machine."""
    from memesh.app import dispatch
    from memesh.app.operations.writing import MEMORY_TOOL_COMMAND
    from memesh.app.resources import Resources

    where: Path | str | None = None
    if db_path is not None:  # a SQLite file's path, or a postgresql:// URL
        where = db_path if isinstance(db_path, str) and "://" in db_path else Path(db_path)
    resources = Resources(db_path=where, on_open_failure=_unavailable)
    try:
        # A database failure (locked, full, damaged, will not open) becomes its translated message, naming no path.
        result = dispatch.run(MEMORY_TOOL_COMMAND, resources, {"input": command}, resources.context(SOURCE_HOST, True))
    except Exception as exc:
        # Anything else is a bug; the result still goes to a model over the wire, so it names only the exception's
        # kind, never its text, which could hold this machine's paths.
        return _error(f"Error: the memory store could not complete this command ({type(exc).__name__}).")
    finally:
        resources.close()
    match result:
        case Success(text):
            return {"content": text, "is_error": False}
        case Failure(problem):
            return _error(problem.message if problem.message.startswith("Error:") else f"Error: {problem.message}")
    raise AssertionError("a Result is Success or Failure")


def _unavailable(exc: StoreError) -> StoreError:
    """The database will not open: said without its path (the reason alone), as every result of this tool is."""
    from memesh.errors import MemeshError
    from memesh.store.errors import StoreError

    return StoreError(str(exc), MemeshError.failed(f"Error: the memory store is unavailable ({exc.reason})."))
