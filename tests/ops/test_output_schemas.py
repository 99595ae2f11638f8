"""Every answer the operations give matches the tool's output schema (MCP clients re-validate structuredContent)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from jsonschema import Draft202012Validator

from memesh.schema import files as schemas

if TYPE_CHECKING:
    from tests.conftest import Caller


def _check(tool: str, answer: Any) -> None:
    validator = Draft202012Validator(schemas.load(f"tools/{tool}.output"))
    assert [error.message for error in validator.iter_errors(answer)] == []


def test_every_optional_remember_field_matches_the_output_schema(tools: Caller) -> None:
    calls: list[dict[str, Any]] = [
        {"name": "old", "type": "fact", "observations": ["o"]},
        {"name": "other", "type": "fact", "observations": ["o"], "namespace": "team"},
        {
            "name": "new",
            "type": "fact",
            "title": "T",
            "observations": ["n"],
            "relations": [{"to": "old", "type": "supersedes"}, {"to": "missing", "type": "x"}],
        },
        {"name": "other", "type": "fact", "observations": ["p"], "namespace": "global"},
        {"name": "new", "replace": True, "observations": ["r"]},
        {"name": "fresh", "type": "fact", "replace": True, "observations": ["r"]},
        {"note": "# Heading\n\nbody", "tags": ["t"]},
    ]
    answers = [tools.ok("remember", arguments) for arguments in calls]
    assert {"superseded", "relationErrors", "relationsCreated", "movedFromNamespace", "replaced", "derived"} <= {
        key for answer in answers for key in answer
    }
    for answer in answers:
        _check("remember", answer)


def test_every_optional_recall_field_matches_the_output_schema(tools: Caller, agent_tools: Caller) -> None:
    tools.ok("remember", {"name": "a", "type": "fact", "observations": ["shared"]})
    tools.ok(
        "remember",
        {"name": "b", "type": "fact", "observations": ["shared"], "relations": [{"to": "a", "type": "contradicts"}]},
    )
    for n in range(6):
        tools.ok("remember", {"name": f"big{n}", "type": "fact", "observations": ["shared " + "x" * 9_000]})
    tools.ok("forget", {"name": "a"})
    answers = [
        tools.ok("recall", {"query": "shared", "include_archived": True}),
        agent_tools.ok("recall", {"query": "shared", "include_archived": True}),
        agent_tools.ok("recall", {}),
        tools.ok("recall", {"query": "???"}),
    ]
    assert "conflicts" in answers[0]
    assert "entities_omitted" in answers[1]
    for answer in answers:
        _check("recall", answer)


def test_both_forget_answers_match_the_output_schema(tools: Caller) -> None:
    tools.ok("remember", {"name": "m", "type": "fact", "observations": ["a", "b"]})
    _check("forget", tools.ok("forget", {"name": "m", "observation": "a"}))
    _check("forget", tools.ok("forget", {"name": "m"}))
