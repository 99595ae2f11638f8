"""The installed `memesh` script run as a real process: exit statuses, stdout/stderr, and one database file."""

from __future__ import annotations

import copy
import json
from typing import TYPE_CHECKING

from memesh.app.openai_export import _give_arrays_items
from memesh.app.registry import TOOLS
from memesh.schema import files as schemas

if TYPE_CHECKING:
    from tests.transports.cli.conftest import Process


def test_note_then_recall_round_trips_through_the_database_file(memesh_process: Process) -> None:
    stored = memesh_process("remember", "Use PKCE for the public client")
    assert stored.code == 0, stored.err
    assert stored.out.splitlines()[1] == "   title: Use PKCE for the public client"
    found = memesh_process("recall", "pkce", "--json")
    assert found.code == 0
    entity = json.loads(found.out)["entities"][0]
    assert entity["observations"] == ["Use PKCE for the public client"]
    assert entity["metadata"]["provenance"]["source_host"] == "cli"


def test_structured_variadic_and_repeated_flags_then_replace(memesh_process: Process) -> None:
    first = memesh_process(
        "remember", "--name", "auth", "--type", "decision", "--obs", "a", "b", "--tags", "x", "--tags", "y"
    )
    assert first.out == '✅ Stored "auth" (2 observations, 2 tags)\n'
    replaced = memesh_process("remember", "--name", "auth", "--obs", "PKCE, not implicit", "--replace", "--json")
    assert replaced.code == 0
    assert json.loads(replaced.out)["type"] == "decision"
    entity = json.loads(memesh_process("recall", "--json").out)["entities"][0]
    assert (entity["observations"], entity["tags"]) == (["PKCE, not implicit"], ["x", "y"])


def test_a_missing_relation_target_exits_1_with_the_warning_on_stderr(memesh_process: Process) -> None:
    out = memesh_process("remember", "--name", "v2", "--type", "decision", "--obs", "x", "--supersedes", "v1")
    assert out.code == 1
    assert out.out.startswith('✅ Stored "v2"')
    assert "⚠️" in out.err
    assert "v1" in out.err


def test_recall_human_output_caps_display_and_warns_of_conflicts_and_the_limit(memesh_process: Process) -> None:
    assert memesh_process("remember", "--name", "use-jwt", "--type", "decision", "--obs", f"jwt {'a' * 600}").code == 0
    out = memesh_process(
        "remember", "--name", "no-jwt", "--type", "decision", "--obs", "jwt out", "--contradicts", "use-jwt"
    )
    assert out.code == 0
    lines = memesh_process("recall", "jwt", "--limit", "2").out.splitlines()
    assert any(line.endswith("… (+104 more chars)") for line in lines)
    assert "2 result(s) (search limit reached — more may match; raise --limit)" in lines
    assert lines[-1] == 'Warning: Conflicts detected: "no-jwt" contradicts "use-jwt"'


def test_recall_json_is_size_capped(memesh_process: Process) -> None:
    assert memesh_process("remember", "--name", "huge", "--type", "t", "--obs", "z" * 9000).code == 0
    envelope = json.loads(memesh_process("recall", "--json").out)
    assert envelope["truncated"] is True
    assert envelope["entities"][0]["observations"][0].endswith("more bytes)")


def test_forget_exits_0_only_when_something_changed(memesh_process: Process) -> None:
    assert memesh_process("remember", "--name", "n", "--type", "t", "--obs", "x").code == 0
    missing = memesh_process("forget", "--name", "ghost", "--json")
    assert missing.code == 1
    assert json.loads(missing.out)["archived"] is False
    no_match = memesh_process("forget", "--name", "n", "--observation", "y")
    assert no_match.code == 1
    assert no_match.err.startswith("Error: ")
    assert memesh_process("forget", "--name", "n").code == 0


def test_export_schema_prints_every_tool_and_refuses_other_formats(memesh_process: Process) -> None:
    out = memesh_process("export-schema")
    assert out.code == 0
    exported = {item["function"]["name"]: item["function"]["parameters"] for item in json.loads(out.out)}
    assert set(exported) == {f"memesh_{tool.name}" for tool in TOOLS}
    for tool in TOOLS:
        schema = copy.deepcopy(schemas.load(tool.input_schema))
        _give_arrays_items(schema)  # the export's one addition: an open array's `items: {}`, which OpenAI requires
        assert exported[f"memesh_{tool.name}"]["properties"] == schema["properties"]
    bad = memesh_process("export-schema", "--format", "yaml")
    assert (bad.code, bad.out, bad.err) == (1, "", "Unknown format: yaml. Available: openai\n")


def test_bare_memesh_lists_commands_and_an_unknown_one_fails(memesh_process: Process) -> None:
    bare = memesh_process()
    assert bare.code == 0
    assert "remember" in bare.out
    unknown = memesh_process("bogus")
    assert unknown.code == 2
    assert "Traceback" not in unknown.err
