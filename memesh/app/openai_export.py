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


# --- strict mode ----------------------------------------------------------------------------------------------------

# The keywords OpenAI's strict function schemas read, in the subset every provider's strict mode accepts (no length,
# numeric or pattern constraints: the server checks those on every call anyway).
STRICT_KEYWORDS = frozenset(
    {"type", "properties", "required", "additionalProperties", "items", "enum", "anyOf", "$ref", "$defs", "description"}
)
# Per-action rules the server enforces; they are documentation, not something a model can follow in strict mode.
_SERVER_ONLY_DEFS = frozenset({"refine"})


def strict_parameters(input_schema: dict[str, Any], bundle_entity: dict[str, Any]) -> dict[str, Any]:
    """A tool's input schema in OpenAI's strict form: every object closed (`additionalProperties: false`) with every
    property required, an optional one made nullable (null means "not given": drop it before calling MeMesh),
    `oneOf` as `anyOf`, `const` as a one-value `enum`, and no keyword outside STRICT_KEYWORDS.

    Strict mode cannot say "any JSON value", so two open values are narrowed: an import bundle's entities take the
    export bundle's entity shape (without its free-form metadata, which MCP and HTTP import drop anyway), and a
    message payload is a string, number, boolean or null (send JSON as text)."""
    document = parameters(input_schema)
    defs = {name: value for name, value in document.get("$defs", {}).items() if name not in _SERVER_ONLY_DEFS}
    document = {**document, "$defs": defs} if defs else {k: v for k, v in document.items() if k != "$defs"}
    strict: dict[str, Any] = _strict(document, bundle_entity, required=True)
    return strict


def _strict(schema: Any, entity: dict[str, Any], *, required: bool) -> Any:
    if not isinstance(schema, dict):
        return schema
    node = {key: value for key, value in schema.items() if key in STRICT_KEYWORDS or key in {"const", "oneOf"}}
    if "const" in node:
        node["enum"] = [node.pop("const")]
    if "oneOf" in node:
        node["anyOf"] = node.pop("oneOf")
    if "anyOf" in node:
        node.pop("type", None)  # the alternatives carry their own types
        node["anyOf"] = [_strict(option, entity, required=True) for option in node["anyOf"] if not _open(option)]
    if "items" in node:
        node["items"] = _strict(entity if node["items"] == {} else node["items"], entity, required=True)
    if "$defs" in node:
        node["$defs"] = {name: _strict(value, entity, required=True) for name, value in node["$defs"].items()}
    if node.get("type") == "object" or "properties" in node:
        properties = node.get("properties", {})
        given = set(node.get("required", ()))
        node["properties"] = {
            name: _strict(value, entity, required=name in given) for name, value in properties.items()
        }
        node["required"] = list(properties)
        node["additionalProperties"] = False
    return node if required else _nullable(node)


def _open(schema: Any) -> bool:
    """A schema that admits any object or any array (strict mode cannot say so)."""
    if not isinstance(schema, dict):
        return False
    if schema.get("type") == "object" and "properties" not in schema:
        return True
    return schema.get("type") == "array" and schema.get("items") in ({}, None)


def _nullable(node: dict[str, Any]) -> dict[str, Any]:
    """`node`, admitting null as well (an optional argument not given)."""
    if "anyOf" in node:
        if {"type": "null"} not in node["anyOf"]:
            node["anyOf"] = [*node["anyOf"], {"type": "null"}]
        return node
    if "$ref" in node:
        described = {"description": node.pop("description")} if "description" in node else {}
        return {"anyOf": [node, {"type": "null"}], **described}
    if "enum" in node:
        if None not in node["enum"]:
            node["enum"] = [*node["enum"], None]
        if "type" in node:
            node["type"] = _with_null(node["type"])
        return node
    if "type" in node:
        node["type"] = _with_null(node["type"])
    return node


def _with_null(kind: Any) -> list[Any]:
    kinds = list(kind) if isinstance(kind, list) else [kind]
    return kinds if "null" in kinds else [*kinds, "null"]


def strict_tools() -> list[dict[str, Any]]:
    """`openai_tools()` in strict form: each function with `"strict": true` and its parameters strict."""
    entity = _bundle_entity()
    return [
        {
            "type": "function",
            "function": {
                "name": f"{FUNCTION_PREFIX}{tool.name}",
                "description": schemas.description(tool.input_schema),
                "parameters": strict_parameters(schemas.load(tool.input_schema), entity),
                "strict": True,
            },
        }
        for tool in TOOLS
    ]


def _bundle_entity() -> dict[str, Any]:
    """The export bundle's entity, without its free-form metadata (what a strict import can carry)."""
    entity = copy.deepcopy(schemas.load("tools/export.output")["$defs"]["entity"])
    entity["properties"].pop("metadata", None)
    entity["additionalProperties"] = False
    return dict(entity)
