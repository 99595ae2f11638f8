"""What MeMesh looks like over MCP: the tools/list entries (the schema files, less what only MeMesh reads in them),
and the one table that turns a dispatch Result into a tools/call result (`calls.py`, which needs no SDK) as the
SDK's CallToolResult."""

from __future__ import annotations

import copy
from typing import Any

from mcp import types
from mcp.server import ServerRequestContext
from returns.result import Result

from memesh.app.registry import TOOLS, Tool
from memesh.errors import MemeshError
from memesh.schema import files as schemas
from memesh.transports.mcp import calls
from memesh.transports.mcp.calls import DELIVERY, REASON_MAX, Delivery, compact_json, short_reason

__all__ = [
    "DELIVERY",
    "REASON_MAX",
    "Delivery",
    "client_name",
    "compact_json",
    "short_reason",
    "to_call_result",
    "tool_entry",
    "tool_error",
    "tool_listing",
    "unexpected_failure",
]


# What a schema file holds for MeMesh itself, left out of tools/list: the input schema's top-level description is
# the tool's description (served once, as the entry's `description`: a second copy cost 8.5 of the listing's 61 KB,
# and a client hands both to its model), and a file's top-level title is the class name codegen gives it.
INPUT_ONLY_HERE = ("description", "title")
OUTPUT_ONLY_HERE = ("title",)


def served_schema(name: str | None, left_out: tuple[str, ...]) -> dict[str, Any]:
    """The schema file `name` as tools/list serves it: as written, without the top-level keys `left_out`."""
    # A copy: the loaded schemas are cached for validation and must not be shared with the SDK's models.
    schema = copy.deepcopy(schemas.load(name))
    for key in left_out:
        schema.pop(key, None)
    return schema


def tool_entry(tool: Tool[Any, Any, Any]) -> types.Tool:
    """One registry tool as tools/list serves it: its schema files (`served_schema`), its hints as annotations."""
    return types.Tool(
        name=tool.name,
        title=tool.title,
        description=schemas.description(tool.input_schema),
        input_schema=served_schema(tool.input_schema, INPUT_ONLY_HERE),
        output_schema=served_schema(tool.output_schema, OUTPUT_ONLY_HERE),
        annotations=types.ToolAnnotations(
            read_only_hint=tool.read_only,
            destructive_hint=tool.destructive,
            idempotent_hint=tool.idempotent,
            # Every tool touches only the local database, never the outside world.
            open_world_hint=False,
        ),
    )


def tool_listing() -> types.ListToolsResult:
    """Every tool in the registry, in registry order."""
    return types.ListToolsResult(tools=[tool_entry(tool) for tool in TOOLS])


def tool_error(message: str) -> types.CallToolResult:
    """A failure the model reads as the tool's answer."""
    return types.CallToolResult.model_validate(calls.tool_error(message))


def to_call_result(result: Result[Any, MemeshError], tool: str | None = None) -> types.CallToolResult:
    """`calls.to_wire` as the SDK's model: the one mapping, whichever way the call was answered."""
    return types.CallToolResult.model_validate(calls.to_wire(result, tool))


def unexpected_failure(name: str, exc: BaseException) -> types.CallToolResult:
    """The answer when a tool raised instead of returning a Result (the traceback goes to the log, not the wire)."""
    return types.CallToolResult.model_validate(calls.unexpected_failure(name, exc))


def client_name(ctx: ServerRequestContext[Any, Any]) -> str | None:
    """The name the client declared, None when it declared none.

    2025-11-25 clients declare it once, in initialize's clientInfo; 2026-07-28 clients may put clientInfo in each
    request's `_meta` envelope (or leave it out). The SDK turns either into the session's client_params, and it
    refuses a malformed envelope before a handler runs, so there is nothing else to read.
    """
    params = ctx.session.client_params
    return params.client_info.name if params is not None else None
