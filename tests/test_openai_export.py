"""The OpenAI export: one function per registry tool, from the schema files, documents keys stripped."""

from __future__ import annotations

from memesh.app.openai_export import openai_tools, parameters
from memesh.app.registry import TOOLS
from memesh.schema import files as schemas


def test_one_function_per_registry_tool_in_registry_order() -> None:
    assert [item["function"]["name"] for item in openai_tools()] == [f"memesh_{tool.name}" for tool in TOOLS]


def test_the_description_is_the_input_schema_description() -> None:
    for item, tool in zip(openai_tools(), TOOLS, strict=True):
        assert item["function"]["description"] == schemas.description(tool.input_schema)


def test_parameters_are_the_input_schema_without_schema_title_and_description() -> None:
    for item, tool in zip(openai_tools(), TOOLS, strict=True):
        schema = schemas.load(tool.input_schema)
        params = item["function"]["parameters"]
        if "oneOf" in schema:  # merged into one object: see the action-discriminated test below
            continue
        assert set(params) == set(schema) - {"$schema", "title", "description"}
        assert all(params[key] == schema[key] for key in params)


def test_editing_the_export_leaves_the_loaded_schema_alone() -> None:
    schema = schemas.load("tools/remember.input")
    exported = parameters(schema)
    exported["properties"]["name"]["maxLength"] = 1
    assert schemas.load("tools/remember.input")["properties"]["name"]["maxLength"] == 255


def test_an_action_discriminated_tool_is_one_object_with_the_action_as_an_enum() -> None:
    [work_package] = [t["function"] for t in openai_tools() if t["function"]["name"] == "memesh_work_package"]
    parameters = work_package["parameters"]
    assert parameters["type"] == "object"
    assert "oneOf" not in parameters
    assert parameters["properties"]["action"]["enum"] == ["prepare", "submit", "defer"]
    assert parameters["required"] == ["action"]
    assert {"project", "kind", "package_id", "ref", "result", "reason"} <= set(parameters["properties"])
    assert parameters["additionalProperties"] is False
