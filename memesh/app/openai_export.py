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
    """A tool's input schema as OpenAI `parameters`: the root `$schema`, `title` and `description` removed, and an
    action-discriminated root (`oneOf` of objects) merged into one object (`merged_branches`)."""
    document = {key: value for key, value in input_schema.items() if key not in _DOCUMENT_KEYS}
    if "oneOf" in document and "properties" not in document:
        document = merged_branches(document)
    # A copy: the loaded schema is cached for the process and must not change under a caller that edits this.
    return copy.deepcopy(document)


def merged_branches(document: dict[str, Any]) -> dict[str, Any]:
    """One object for a root `oneOf`, because OpenAI takes a function's parameters as a single object: every field
    of every branch once (as the first branch declaring it has it), a field that each branch fixes with `const` (the
    action) as an enum of those values, required only what every branch requires. The per-action rules are in the
    tool's description, and the server still validates each call against the file itself."""
    branches = [branch for branch in document["oneOf"] if isinstance(branch, dict)]
    properties: dict[str, Any] = {}
    for branch in branches:
        for name, field in branch.get("properties", {}).items():
            properties.setdefault(name, field)
    for name in list(properties):
        fixed = [branch.get("properties", {}).get(name, {}) for branch in branches]
        if all(isinstance(field, dict) and "const" in field for field in fixed):
            values = [field["const"] for field in fixed]
            said = "; ".join(
                f"{field['const']}: {str(field['description']).rstrip('.')}"
                for field in fixed
                if "description" in field
            )
            properties[name] = {"enum": values, **({"description": said} if said else {})}
    first = branches[0].get("required", []) if branches else []
    required = [name for name in first if all(name in branch.get("required", []) for branch in branches)]
    merged: dict[str, Any] = {"type": "object", "properties": properties, "required": required}
    if all(branch.get("additionalProperties") is False for branch in branches):
        merged["additionalProperties"] = False
    if "$defs" in document:
        merged["$defs"] = document["$defs"]
    return merged


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
