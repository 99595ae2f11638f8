"""The OpenAI export: one function per registry tool, from the schema files, documents keys stripped."""

from __future__ import annotations

import copy
import re
from collections.abc import Iterator
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError

from memesh.app.openai_export import _give_arrays_items, openai_tools, parameters, strict_tools
from memesh.app.registry import TOOLS
from memesh.schema import files as schemas


def test_one_function_per_registry_tool_in_registry_order() -> None:
    assert [item["function"]["name"] for item in openai_tools()] == [f"memesh_{tool.name}" for tool in TOOLS]


def test_the_description_is_the_input_schema_description() -> None:
    for item, tool in zip(openai_tools(), TOOLS, strict=True):
        assert item["function"]["description"] == schemas.description(tool.input_schema)


def test_parameters_are_the_input_schema_without_schema_title_and_description() -> None:
    for item, tool in zip(openai_tools(), TOOLS, strict=True):
        schema = copy.deepcopy(schemas.load(tool.input_schema))
        _give_arrays_items(schema)  # the one addition: an open array's `items: {}`, which OpenAI requires
        params = item["function"]["parameters"]
        assert set(params) == set(schema) - {"$schema", "title", "description"}
        assert all(params[key] == schema[key] for key in params)


def test_editing_the_export_leaves_the_loaded_schema_alone() -> None:
    schema = schemas.load("tools/remember.input")
    exported = parameters(schema)
    exported["properties"]["name"]["maxLength"] = 1
    assert schemas.load("tools/remember.input")["properties"]["name"]["maxLength"] == 255


def test_an_action_discriminated_tool_is_one_flat_object_with_the_action_as_an_enum() -> None:
    [work_package] = [t["function"] for t in openai_tools() if t["function"]["name"] == "memesh_work_package"]
    parameters = work_package["parameters"]
    assert parameters["type"] == "object"
    assert "oneOf" not in parameters
    assert parameters["properties"]["action"]["enum"] == ["prepare", "submit", "defer"]
    assert parameters["required"] == ["action"]
    assert {"project", "kind", "package_id", "ref", "result", "reason"} <= set(parameters["properties"])
    assert parameters["additionalProperties"] is False


# OpenAI's function-calling rules for a (non-strict) tool, as its API enforces them with a 400
# `invalid_function_parameters`: the shape of a tool, a function name of at most 64 letters, digits, `_` or `-`,
# `parameters` an object schema with `properties` and no combinator or enum at its root ("schema must have type
# 'object' and not have 'oneOf'/'anyOf'/'allOf'/'enum'/'not' at the top level"; "object schema missing properties"),
# and an `items` on every array schema at any depth ("In context=(...), array schema missing items"), including
# the branches of a combinator and the `$defs` a `$ref` reaches. (OpenAI documents a 1024-character limit on a
# function description that the API no longer enforces; it is not checked here.)
_FUNCTION_NAME = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
_ROOT_FORBIDDEN = ("oneOf", "anyOf", "allOf", "enum", "not")
_SCHEMA_MAPS = ("properties", "$defs", "definitions", "patternProperties")
_SCHEMA_LISTS = ("anyOf", "oneOf", "allOf", "prefixItems")
_SCHEMA_VALUES = ("items", "not", "contains", "additionalProperties", "if", "then", "else")


def _subschemas(schema: dict[str, Any], path: str) -> Iterator[tuple[str, Any]]:
    for key in _SCHEMA_MAPS:
        for name, sub in schema.get(key, {}).items():
            yield f"{path}/{key}/{name}", sub
    for key in _SCHEMA_LISTS:
        for index, sub in enumerate(schema.get(key, [])):
            yield f"{path}/{key}/{index}", sub
    for key in _SCHEMA_VALUES:
        if key in schema:
            yield f"{path}/{key}", schema[key]


def _resolves(document: dict[str, Any], ref: str) -> bool:
    if not ref.startswith("#/"):
        return False
    node: Any = document
    for part in ref[2:].split("/"):
        if not isinstance(node, dict) or part not in node:
            return False
        node = node[part]
    return isinstance(node, dict)


def _schema_problems(document: dict[str, Any], schema: Any, path: str) -> Iterator[str]:
    if isinstance(schema, bool):
        if not path.endswith("/additionalProperties"):
            yield f"{path}: a boolean schema"
        return
    if not isinstance(schema, dict):
        yield f"{path}: not a schema object"
        return
    types = schema.get("type")
    if (types == "array" or (isinstance(types, list) and "array" in types)) and "items" not in schema:
        yield f"{path}: array schema missing items"
    if "$ref" in schema and not _resolves(document, schema["$ref"]):
        yield f"{path}: $ref {schema['$ref']!r} does not resolve inside the parameters"
    for sub_path, sub in _subschemas(schema, path):
        yield from _schema_problems(document, sub, sub_path)


def openai_tool_problems(tools: Any) -> list[str]:
    """Every way `tools` breaks OpenAI's rules for the `tools` parameter of a chat completion."""
    if not isinstance(tools, list) or not tools:
        return ["not a non-empty list of tools"]
    problems: list[str] = []
    names: list[str] = []
    for index, tool in enumerate(tools):
        where = f"tools[{index}]"
        if not isinstance(tool, dict) or set(tool) != {"type", "function"} or tool["type"] != "function":
            problems.append(f"{where}: not {{type: function, function}}")
            continue
        function = tool["function"]
        if not isinstance(function, dict) or not set(function) <= {"name", "description", "parameters", "strict"}:
            problems.append(f"{where}.function: unknown keys")
            continue
        name = function.get("name")
        if not isinstance(name, str) or not _FUNCTION_NAME.match(name):
            problems.append(f"{where}.function.name: {name!r}")
        names.append(str(name))
        if not isinstance(function.get("description"), str) or not function["description"]:
            problems.append(f"{where}.function.description: missing")
        params = function.get("parameters")
        if not isinstance(params, dict) or params.get("type") != "object":
            problems.append(f"{where}: parameters must be a JSON Schema of type object")
            continue
        if not isinstance(params.get("properties"), dict):
            problems.append(f"{where}: object schema missing properties")
        problems.extend(f"{where}: {key} at the top level" for key in _ROOT_FORBIDDEN if key in params)
        try:
            Draft202012Validator.check_schema(params)
        except SchemaError as exc:
            problems.append(f"{where}: not a JSON Schema ({exc.message})")
        problems.extend(f"{where}: {problem}" for problem in _schema_problems(params, params, "parameters"))
    if len(set(names)) != len(names):
        problems.append("function names repeat")
    return problems


def test_the_rule_checker_finds_what_openai_refuses() -> None:
    def tool(parameters: dict[str, Any], name: str = "f") -> dict[str, Any]:
        return {"type": "function", "function": {"name": name, "description": "d", "parameters": parameters}}

    assert openai_tool_problems([tool({"type": "object", "properties": {}})]) == []
    assert openai_tool_problems([tool({"type": "object", "properties": {"a": {"type": "array"}}})]) == [
        "tools[0]: parameters/properties/a: array schema missing items"
    ]
    nested = {"type": "object", "properties": {"p": {"anyOf": [{"type": "string"}, {"type": ["array", "null"]}]}}}
    assert openai_tool_problems([tool(nested)]) == [
        "tools[0]: parameters/properties/p/anyOf/1: array schema missing items"
    ]
    in_defs = {"type": "object", "properties": {"r": {"$ref": "#/$defs/x"}}, "$defs": {"x": {"type": "array"}}}
    assert openai_tool_problems([tool(in_defs)]) == ["tools[0]: parameters/$defs/x: array schema missing items"]
    assert openai_tool_problems([tool({"type": "object"})]) == ["tools[0]: object schema missing properties"]
    assert openai_tool_problems([tool({"type": "object", "properties": {}, "oneOf": [{}]})]) == [
        "tools[0]: oneOf at the top level"
    ]
    assert openai_tool_problems([tool({"type": "object", "properties": {}}, name="memesh.remember")]) == [
        "tools[0].function.name: 'memesh.remember'"
    ]
    dangling = {"type": "object", "properties": {"r": {"$ref": "#/$defs/missing"}}}
    assert openai_tool_problems([tool(dangling)]) == [
        "tools[0]: parameters/properties/r: $ref '#/$defs/missing' does not resolve inside the parameters"
    ]


def test_the_whole_export_keeps_every_openai_function_calling_rule() -> None:
    assert openai_tool_problems(openai_tools()) == []


# --- OpenAI's published function rules, for both forms -------------------------------------------------------------

_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
# Strict mode: the keywords OpenAI's structured-outputs guide lists as supported (the strict form keeps a subset).
_STRICT_SUPPORTED = {
    "type", "properties", "required", "additionalProperties", "items", "enum", "const", "anyOf", "$ref", "$defs",
    "description", "title", "pattern", "format", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum",
    "multipleOf", "minItems", "maxItems",
}  # fmt: skip
_MAX_DEPTH = 10
_MAX_PROPERTIES = 5000
_MAX_ENUM_VALUES = 1000


def openai_violations(tool: dict[str, Any], *, strict: bool) -> list[str]:
    """What OpenAI's function-calling rules refuse in one tool definition (strict adds the structured-outputs rules):
    a function name of 1-64 letters, digits, `_` or `-`; parameters an object schema with no combinator at its
    root; every array with `items`; and in strict mode every object closed with every property required, only the
    supported keywords, every subschema typed (or a `$ref`, `anyOf` or `enum`), every `$ref` resolving, at most 10
    levels of nesting, 5,000 properties and 1,000 enum values."""
    found: list[str] = []
    function = tool["function"]
    params = function["parameters"]
    if not _NAME.match(function["name"]):
        found.append(f"name {function['name']!r}")
    if params.get("type") != "object" or {"anyOf", "oneOf", "allOf", "not", "enum"} & set(params):
        found.append("parameters is not a plain object schema")
    if strict and function.get("strict") is not True:
        found.append("strict is not true")
    counts = {"properties": 0, "enum": 0}

    def walk(node: Any, path: str, depth: int) -> None:
        if isinstance(node, list):
            for index, item in enumerate(node):
                walk(item, f"{path}/{index}", depth)
            return
        if not isinstance(node, dict):
            return
        kind = node.get("type")
        kinds = kind if isinstance(kind, list) else [kind]
        if "array" in kinds and "items" not in node:
            found.append(f"{path}: array without items")
        if strict:
            if unknown := set(node) - _STRICT_SUPPORTED:
                found.append(f"{path}: unsupported {sorted(unknown)}")
            if not ({"type", "$ref", "anyOf", "enum", "const"} & set(node)):
                found.append(f"{path}: untyped")
            if "$ref" in node and not _resolves(params, node["$ref"]):
                found.append(f"{path}: $ref {node['$ref']} does not resolve")
            if "object" in kinds or "properties" in node:
                if node.get("additionalProperties") is not False:
                    found.append(f"{path}: additionalProperties is not false")
                if set(node.get("required", [])) != set(node.get("properties", {})):
                    found.append(f"{path}: not every property is required")
            if depth > _MAX_DEPTH:
                found.append(f"{path}: nested deeper than {_MAX_DEPTH}")
        counts["properties"] += len(node.get("properties", {}))
        counts["enum"] += len(node.get("enum", []))
        for key, value in node.items():
            if key in {"properties", "$defs"}:
                for name, sub in value.items():
                    walk(sub, f"{path}/{key}/{name}", depth + (key == "properties"))
            elif key in {"items", "anyOf", "oneOf", "allOf", "additionalProperties"}:
                walk(value, f"{path}/{key}", depth + (key == "items"))

    walk(params, function["name"], 1)
    if strict and counts["properties"] > _MAX_PROPERTIES:
        found.append("too many properties")
    if strict and counts["enum"] > _MAX_ENUM_VALUES:
        found.append("too many enum values")
    return found


def test_the_default_export_is_not_strict_mode_as_it_stands() -> None:
    # Why --strict exists: the schema files use what strict mode refuses (optional properties, lengths, oneOf).
    assert all(openai_violations({**item, "function": {**item["function"], "strict": True}}, strict=True)
               for item in openai_tools())  # fmt: skip


def test_every_tool_in_the_strict_export_keeps_openais_strict_rules() -> None:
    tools = strict_tools()
    assert len(tools) == len(TOOLS)
    assert openai_tool_problems(tools) == []  # the rules every function definition keeps, strict or not
    assert {item["function"]["name"]: openai_violations(item, strict=True) for item in tools} == {
        item["function"]["name"]: [] for item in tools
    }
    for item in tools:
        Draft202012Validator.check_schema(item["function"]["parameters"])


def test_an_optional_argument_is_nullable_and_a_required_one_is_not_in_the_strict_export() -> None:
    remember = next(item for item in strict_tools() if item["function"]["name"] == "memesh_remember")
    properties = remember["function"]["parameters"]["properties"]
    original = schemas.load("tools/remember.input")
    for name in original["properties"]:
        accepts_null = Draft202012Validator(
            {**remember["function"]["parameters"], "properties": {name: properties[name]}, "required": [name]}
        ).is_valid({name: None})
        assert accepts_null == (name not in original.get("required", [])), name


def test_arguments_a_strict_model_sends_are_valid_once_their_nulls_are_dropped() -> None:
    strict_remember = next(item for item in strict_tools() if item["function"]["name"] == "memesh_remember")
    sent: dict[str, Any] = dict.fromkeys(strict_remember["function"]["parameters"]["properties"])
    sent.update(name="deploy-notes", type="note", observations=["ship on Friday"])
    assert Draft202012Validator(strict_remember["function"]["parameters"]).is_valid(sent)
    given = {name: value for name, value in sent.items() if value is not None}
    assert Draft202012Validator(schemas.load("tools/remember.input")).is_valid(given)
