"""What MeMesh looks like over MCP: the tools/list entries (the schema files verbatim), and the one table that turns a
dispatch Result into a tools/call result (`calls.py`, which needs no SDK) as the SDK's CallToolResult."""

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


def tool_entry(tool: Tool[Any, Any, Any]) -> types.Tool:
    """One registry tool as tools/list serves it: its schema files verbatim, its hints as annotations."""
    return types.Tool(
        name=tool.name,
        title=tool.title,
        description=schemas.description(tool.input_schema),
        # Copies: the loaded schemas are cached for validation and must not be shared with the SDK's models.
        input_schema=copy.deepcopy(schemas.load(tool.input_schema)),
        output_schema=copy.deepcopy(schemas.load(tool.output_schema)),
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
