"""What MeMesh looks like over MCP: the tools/list entries (the schema files verbatim) and the one table that turns a
dispatch Result into a CallToolResult."""

from __future__ import annotations

import copy
import json
import re
from enum import Enum
from typing import Any

from mcp import types
from mcp.server import ServerRequestContext
from returns.result import Failure, Result, Success

from memesh.app.registry import TOOLS, Tool
from memesh.errors import ErrorCode, MemeshError
from memesh.schema import files as schemas

REASON_MAX = 200
# An absolute or home-relative path not glued to a word ("read/write" stays): it may name the user's files.
_PATH = re.compile(r"(?<![\w.])(?:[A-Za-z]:)?[\\/~][^\s'\"(),;]*")
# A quoted path (as OSError prints it) may hold spaces: blanked whole, quotes kept, before the unquoted ones.
_QUOTED_PATH = re.compile(r"(['\"])(?:[A-Za-z]:)?[\\/~][^'\"]*\1")


class Delivery(Enum):
    """How a failed call reaches the client."""

    # An isError result: the model reads the message and can correct the call. A protocol error is left for
    # requests the SDK itself refuses (malformed JSON-RPC, unknown method), so no MeMesh failure becomes one.
    TOOL_ERROR = "tool-error"


# One row per code, written out (not derived from ErrorCode) so a new code fails the coverage test until someone
# decides how MCP delivers it.
DELIVERY: dict[ErrorCode, Delivery] = {
    ErrorCode.AUTH_MISSING_BEARER: Delivery.TOOL_ERROR,
    ErrorCode.AUTH_INVALID_TOKEN: Delivery.TOOL_ERROR,
    ErrorCode.AUTH_NOT_CONFIGURED: Delivery.TOOL_ERROR,
    ErrorCode.AUTH_CROSS_ORIGIN: Delivery.TOOL_ERROR,
    ErrorCode.BAD_BODY: Delivery.TOOL_ERROR,
    ErrorCode.BAD_PARAM: Delivery.TOOL_ERROR,
    ErrorCode.ROUTE_RETIRED: Delivery.TOOL_ERROR,
    ErrorCode.ROUTE_NOT_FOUND: Delivery.TOOL_ERROR,
    ErrorCode.NOT_FOUND: Delivery.TOOL_ERROR,
    ErrorCode.PAYLOAD_TOO_LARGE: Delivery.TOOL_ERROR,
    ErrorCode.OPERATION_FAILED: Delivery.TOOL_ERROR,
    ErrorCode.PERMISSION_DENIED: Delivery.TOOL_ERROR,
    ErrorCode.INTERNAL: Delivery.TOOL_ERROR,
    ErrorCode.RECIPIENT_UNAVAILABLE: Delivery.TOOL_ERROR,
    ErrorCode.ROUTER_UNREACHABLE: Delivery.TOOL_ERROR,
    ErrorCode.NATIVE_MESSAGE_TOO_LARGE: Delivery.TOOL_ERROR,
    ErrorCode.INTENDED_FOR_OTHER_SESSION: Delivery.TOOL_ERROR,
    ErrorCode.STORAGE_QUOTA_EXCEEDED: Delivery.TOOL_ERROR,
    ErrorCode.IDEMPOTENCY_CONFLICT: Delivery.TOOL_ERROR,
}


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


def compact_json(value: Any) -> str:
    """The text form of a structured result: compact, and non-ASCII kept as written."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def tool_error(message: str) -> types.CallToolResult:
    """A failure the model reads as the tool's answer."""
    return types.CallToolResult(is_error=True, content=[types.TextContent(type="text", text=message)])


def to_call_result(result: Result[Any, MemeshError]) -> types.CallToolResult:
    """Success → the output as text and as structuredContent; Failure → delivered as DELIVERY says for its code."""
    match result:
        case Success(data):
            return types.CallToolResult(
                content=[types.TextContent(type="text", text=compact_json(data))], structured_content=data
            )
        case Failure(error):
            match DELIVERY[error.code]:
                case Delivery.TOOL_ERROR:
                    return tool_error(error.message)
    raise TypeError(f"not a Result: {type(result).__name__}")


def short_reason(exc: BaseException) -> str:
    """One line about an unexpected exception for the client: its type and first line, paths blanked out."""
    lines = str(exc).strip().splitlines()
    text = _PATH.sub("<path>", _QUOTED_PATH.sub(r"\1<path>\1", lines[0])).strip() if lines else ""
    reason = f"{type(exc).__name__}: {text}" if text else type(exc).__name__
    return reason if len(reason) <= REASON_MAX else reason[: REASON_MAX - 1] + "…"


def unexpected_failure(name: str, exc: BaseException) -> types.CallToolResult:
    """The answer when a tool raised instead of returning a Result (the traceback goes to the log, not the wire)."""
    return tool_error(f'Tool "{name}" failed: {short_reason(exc)}')


def client_name(ctx: ServerRequestContext[Any, Any]) -> str | None:
    """The name the client declared, None when it declared none.

    2025-11-25 clients declare it once, in initialize's clientInfo; 2026-07-28 clients may put clientInfo in each
    request's `_meta` envelope (or leave it out). The SDK turns either into the session's client_params, and it
    refuses a malformed envelope before a handler runs, so there is nothing else to read.
    """
    params = ctx.session.client_params
    return params.client_info.name if params is not None else None
