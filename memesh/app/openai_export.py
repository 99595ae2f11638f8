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
    exported = copy.deepcopy(document)
    _give_arrays_items(exported)
    return exported


def _give_arrays_items(schema: Any) -> None:
    """OpenAI refuses an array schema without `items` ("array schema missing items"); where a schema file leaves an
    array's items open (import's entities, each checked by the import itself), the export says so: `items: {}`."""
    if isinstance(schema, list):
        for item in schema:
            _give_arrays_items(item)
        return
    if not isinstance(schema, dict):
        return
    kind = schema.get("type")
    if (kind == "array" or (isinstance(kind, list) and "array" in kind)) and "items" not in schema:
        schema["items"] = {}
    for value in schema.values():
        _give_arrays_items(value)


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
