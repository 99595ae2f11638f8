"""Every tool in OpenAI function-calling form, built from the same schema files MCP `tools/list` serves."""

from __future__ import annotations

import copy
from typing import Any

from memesh.app.registry import TOOLS
from memesh.schema import files as schemas

FORMATS = ("openai",)
FUNCTION_PREFIX = "memesh_"
# Keys that describe the schema document rather than the arguments: the description moves up a level, and
# OpenAI reads neither `$schema` nor the codegen class name in `title`.
_DOCUMENT_KEYS = frozenset({"$schema", "title", "description"})


def parameters(input_schema: dict[str, Any]) -> dict[str, Any]:
    """A tool's input schema as OpenAI `parameters`: the root `$schema`, `title` and `description` removed.

    Every input schema is one flat object at its root (MCP clients refuse a top-level `oneOf`, and
    tests/transports/mcp/test_tools_list.py holds every tool to it), which is also the single object OpenAI takes
    as a function's parameters; a tool's per-action rules ride along in `$defs/refine`, and the server enforces them.
    """
    document = {key: value for key, value in input_schema.items() if key not in _DOCUMENT_KEYS}
    # A copy: the loaded schema is cached for the process and must not change under a caller that edits this.
    return copy.deepcopy(document)


def openai_tools() -> list[dict[str, Any]]:
    """One `{"type": "function", "function": {name, description, parameters}}` per registry tool, in order."""
    return [
        {
            "type": "function",
            "function": {
                "name": f"{FUNCTION_PREFIX}{tool.name}",
                "description": schemas.description(tool.input_schema),
                "parameters": parameters(schemas.load(tool.input_schema)),
            },
        }
        for tool in TOOLS
    ]
