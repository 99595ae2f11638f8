"""The OpenAI export: one function per registry tool, from the schema files, documents keys stripped."""

from __future__ import annotations

import copy
import re
from collections.abc import Iterator
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError

from memesh.app.openai_export import _give_arrays_items, openai_tools, parameters
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
