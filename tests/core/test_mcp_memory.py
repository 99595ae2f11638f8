"""The MCP memory server's memory.jsonl read as a bundle: recognized by its content, every name kept or mapped."""

from __future__ import annotations

import json

from memesh.core import mcp_memory


def _lines(*records: object) -> str:
    return "\n".join(json.dumps(record) for record in records)


def test_a_file_whose_first_line_is_an_entity_or_relation_record_is_recognized() -> None:
    assert mcp_memory.recognized(_lines({"type": "entity", "name": "a", "entityType": "t", "observations": []}))
    assert mcp_memory.recognized("\n\n" + _lines({"type": "relation", "from": "a", "to": "b", "relationType": "r"}))


def test_an_export_bundle_and_empty_text_are_not_recognized() -> None:
    assert not mcp_memory.recognized(json.dumps({"version": "3.1.0", "entities": []}))
    assert not mcp_memory.recognized('{\n  "entities": []\n}')
    assert not mcp_memory.recognized("   \n")


def test_entities_become_bundle_entries_with_their_relations_on_the_from_entity() -> None:
    converted = mcp_memory.convert(
        _lines(
            {"type": "entity", "name": "a", "entityType": "person", "observations": ["one"]},
            {"type": "relation", "from": "a", "to": "b", "relationType": "knows"},
            {"type": "entity", "name": "b", "entityType": "person", "observations": []},
        )
    )
    assert converted.bundle["entities"] == [
        {"name": "a", "type": "person", "observations": ["one"], "relations": [{"to": "b", "type": "knows"}]},
        {"name": "b", "type": "person", "observations": []},
    ]
    assert converted.renamed == [] and converted.problems == [] and converted.relations == 1


def test_two_names_that_clean_to_one_are_both_kept_under_different_names() -> None:
    converted = mcp_memory.convert(
        _lines(
            {"type": "entity", "name": "caf\u00e9", "entityType": "t", "observations": ["precomposed"]},
            {"type": "entity", "name": "cafe\u0301", "entityType": "t", "observations": ["combining"]},
        )
    )
    assert [entry["name"] for entry in converted.bundle["entities"]] == ["caf\u00e9", "caf\u00e9-2"]
    assert converted.renamed == [
        {"from": "cafe\u0301", "to": "caf\u00e9-2", "why": "the same as another name once cleaned"}
    ]


def test_a_relation_from_a_name_the_file_never_defines_is_reported() -> None:
    converted = mcp_memory.convert(_lines({"type": "relation", "from": "ghost", "to": "x", "relationType": "r"}))
    assert converted.bundle["entities"] == [] and len(converted.problems) == 1
    assert converted.problems[0].startswith("line 1:")
