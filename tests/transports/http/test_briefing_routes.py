"""GET /v1/briefing-index: the durable-memory index of one project; the briefing block itself has no route."""

from __future__ import annotations

from typing import Any


def test_the_index_needs_the_project_parameter(api: Any) -> None:
    body = api.fails("GET", "/v1/briefing-index", 400, "validation.bad-param")
    assert "project" in body["error"]


def test_a_project_with_no_durable_memories_gets_the_empty_state_line(api: Any) -> None:
    data = api.ok("GET", "/v1/briefing-index?project=memesh")
    assert data["project"] == "memesh" and data["staleDays"] == 180
    assert data["lines"][1] == '- No durable memories (decisions, lessons, patterns, references) for "memesh" yet.'
    assert (data["shown"], data["more"], data["older"], data["truncated"], data["ids"]) == (0, 0, 0, False, [])


def test_the_index_lists_the_project_decision_with_its_handle(api: Any) -> None:
    stored = api.ok(
        "POST",
        "/v1/remember",
        json={
            "name": "keep-the-index-capped",
            "type": "decision",
            "title": "Keep the index capped",
            "tags": ["project:memesh"],
        },
    )
    data = api.ok("GET", "/v1/briefing-index?project=memesh")
    entity_id = stored["entityId"]
    assert data["lines"][1] == f"- [decision] Keep the index capped [mem:{entity_id}]"
    assert data["ids"] == [entity_id] and data["bytes"] == sum(len(line.encode()) + 1 for line in data["lines"])


def test_there_is_no_briefing_post_route(api: Any) -> None:
    api.fails("POST", "/v1/briefing", 404, "route.not-found", json={})
