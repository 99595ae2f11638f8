"""learn: a lesson named from the project and the error, with structured observations and tags."""

from __future__ import annotations

from typing import Any

from memesh.errors import ErrorCode

PROJECT = "app~" + "0" * 32


def _lesson(tools: Any, name: str) -> Any:
    (entity,) = [e for e in tools.ok("export", {})["entities"] if e["name"] == name]
    return entity


def test_a_lesson_is_stored_with_a_line_per_stated_field_and_its_tags(tools: Any) -> None:
    out = tools.ok(
        "learn",
        {
            "error": "TypeError: Cannot read property of null",
            "fix": "Optional chaining",
            "root_cause": "API can return null",
            "severity": "major",
            "project": PROJECT,
        },
    )
    assert out["learned"] is True and out["type"] == "lesson_learned"
    assert out["name"].startswith(f"lesson-{PROJECT}-typeerror-cannot-read-property-of-null-")
    entity = _lesson(tools, out["name"])
    assert entity["type"] == "lesson_learned"
    assert entity["observations"] == [
        "Error: TypeError: Cannot read property of null",
        "Root cause: API can return null",
        "Fix: Optional chaining",
    ]
    assert set(entity["tags"]) == {
        f"project:{PROJECT}",
        "error-pattern:null-reference",
        "severity:major",
        "source:explicit",
    }


def test_the_default_project_comes_from_the_call_context(tools: Any) -> None:
    out = tools.ok("learn", {"error": "build failed", "fix": "clean"})
    assert out["name"].startswith("lesson-test-project~")


def test_repeating_the_same_error_updates_the_same_lesson(tools: Any) -> None:
    first = tools.ok("learn", {"error": "Tests fail with SIGSEGV", "fix": "forks pool", "project": PROJECT})
    second = tools.ok("learn", {"error": "Tests fail with SIGSEGV", "fix": "pin node 20", "project": PROJECT})
    assert first["name"] == second["name"]
    entity = _lesson(tools, first["name"])
    assert entity["observations"].count("Error: Tests fail with SIGSEGV") == 1
    assert "Fix: pin node 20" in entity["observations"]
    assert entity["tags"].count("severity:minor") == 1


def test_an_error_that_is_only_a_credential_is_refused(tools: Any) -> None:
    error = tools.fails("learn", {"error": "ghp_" + "a" * 36, "fix": "rotate"})
    assert error.code == ErrorCode.OPERATION_FAILED


def test_severity_outside_the_three_levels_is_refused(tools: Any) -> None:
    assert tools.fails("learn", {"error": "e", "fix": "f", "severity": "huge"}).code == ErrorCode.BAD_BODY
