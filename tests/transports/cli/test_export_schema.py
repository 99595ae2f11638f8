"""memesh export-schema: every registry tool in OpenAI function form, built from the schema files."""

from __future__ import annotations

import copy
from typing import TYPE_CHECKING

from memesh.app.openai_export import _give_arrays_items, strict_tools
from memesh.app.registry import TOOLS
from memesh.schema import files as schemas
from tests.test_openai_export import openai_tool_problems

if TYPE_CHECKING:
    from tests.transports.cli.conftest import Cli


def test_every_tool_is_exported_from_its_input_schema_file(cli: Cli) -> None:
    exported = cli.ok("export-schema").json()
    assert [item["function"]["name"] for item in exported] == [f"memesh_{tool.name}" for tool in TOOLS]
    for item, tool in zip(exported, TOOLS, strict=True):
        schema = copy.deepcopy(schemas.load(tool.input_schema))
        _give_arrays_items(schema)  # an open array gets `items: {}`, which OpenAI requires
        assert item["type"] == "function"
        assert item["function"]["description"] == schema["description"]
        expected = {key: value for key, value in schema.items() if key not in ("$schema", "title", "description")}
        assert item["function"]["parameters"] == expected


def test_openai_is_the_default_format_and_output_is_indented(cli: Cli) -> None:
    default = cli.ok("export-schema")
    assert default.out == cli.ok("export-schema", "--format", "openai").out
    assert default.out.startswith('[\n  {\n    "type": "function"')


def test_an_unknown_format_is_refused_naming_the_available_ones(cli: Cli) -> None:
    out = cli("export-schema", "--format", "anthropic")
    assert out.code == 1
    assert out.out == ""
    assert out.err == "Unknown format: anthropic. Available: openai\n"


def test_what_export_schema_prints_is_accepted_by_openai_s_function_calling_rules(cli: Cli) -> None:
    assert openai_tool_problems(cli.ok("export-schema").json()) == []


def test_strict_prints_every_tool_in_openais_strict_form(cli: Cli) -> None:
    exported = cli.ok("export-schema", "--strict").json()
    assert exported == strict_tools()
    assert all(item["function"]["strict"] is True for item in exported)
    assert openai_tool_problems(exported) == []
