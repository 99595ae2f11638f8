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


def test_why_without_commits_abstains_and_gives_the_file_tag_half(api: Any) -> None:
    api.ok("POST", "/v1/remember", json={"name": "auth-notes", "type": "note", "tags": ["project:p", "file:auth.ts"]})
    data = api.ok("POST", "/v1/why", json={"file": "src/auth.ts", "project": "p"})
    assert (data["basename"], data["commits"], data["abstentions"]) == ("auth.ts", [], ["no_commits_supplied"])
    assert [e["name"] for e in data["file_memories"]["entities"]] == ["auth-notes"]
    assert api.ok("POST", "/v1/why", json={"file": "a.ts", "commits": []})["abstentions"] == []


def test_why_names_a_commit_it_has_no_memory_of(api: Any) -> None:
    data = api.ok("POST", "/v1/why", json={"file": "a.ts", "commits": ["abcdef1"]})
    assert data["commits"] == [
        {"commit": {"hash": "abcdef1"}, "entity": None, "session": None, "abstentions": ["no_commit_entity"]}
    ]


def test_why_refuses_a_repo_path_field_and_a_bad_hash(api: Any) -> None:
    body = api.fails("POST", "/v1/why", 400, "validation.bad-body", json={"file": "a", "repo": "/tmp"})
    assert "repo" in body["error"]
    body = api.fails("POST", "/v1/why", 400, "validation.bad-body", json={"file": "a", "commits": ["xyz"]})
    assert body["error"].startswith("commits.0")
