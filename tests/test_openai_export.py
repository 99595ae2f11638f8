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
        assert set(params) == set(schema) - {"$schema", "title", "description"}
        assert all(params[key] == schema[key] for key in params)


def test_editing_the_export_leaves_the_loaded_schema_alone() -> None:
    schema = schemas.load("tools/remember.input")
    exported = parameters(schema)
    exported["properties"]["name"]["maxLength"] = 1
    assert schemas.load("tools/remember.input")["properties"]["name"]["maxLength"] == 255
