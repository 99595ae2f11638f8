"""A project's label where the HTTP API asks for a project: the one stored project with it, or a refusal naming the
ids when several share it (issue 34)."""

from __future__ import annotations

from typing import Any

SHOP_A = "shop~" + "a" * 32
SHOP_B = "shop~" + "b" * 32


def _store_in(api: Any, project: str, name: str) -> None:
    api.ok(
        "POST",
        "/v1/remember",
        json={"name": name, "type": "decision", "title": "Keep it", "tags": [f"project:{project}"]},
    )


def test_a_label_reads_the_task_state_and_index_of_its_one_project(api: Any) -> None:
    _store_in(api, SHOP_A, "keep-carts")
    assert api.ok("GET", "/v1/task-state?project=shop")["project"] == SHOP_A
    index = api.ok("GET", "/v1/briefing-index?project=shop")
    assert index["project"] == SHOP_A and [entry["name"] for entry in index["entries"]] == ["keep-carts"]


def test_a_label_two_projects_share_is_refused_with_their_ids(api: Any) -> None:
    _store_in(api, SHOP_A, "keep-carts")
    _store_in(api, SHOP_B, "keep-refunds")
    for path in ("/v1/task-state?project=shop", "/v1/briefing-index?project=shop"):
        body = api.fails("GET", path, 400, "validation.bad-param")
        assert body["error"].startswith("project: ") and SHOP_A in body["error"] and SHOP_B in body["error"]
    body = api.fails("POST", "/v1/why", 400, "validation.bad-body", json={"file": "app.py", "project": "shop"})
    assert SHOP_A in body["error"] and SHOP_B in body["error"]
    assert api.ok("GET", f"/v1/task-state?project={SHOP_B}")["project"] == SHOP_B  # the id still answers


def test_why_scopes_a_file_memory_by_the_label_of_its_project(api: Any) -> None:
    api.ok("POST", "/v1/remember", json={"name": "app-note", "type": "note", "observations": ["app.py boots"],
                                         "tags": ["file:app.py", f"project:{SHOP_A}"]})  # fmt: skip
    api.ok("POST", "/v1/remember", json={"name": "web-note", "type": "note", "observations": ["other app.py"],
                                         "tags": ["file:app.py", "project:web~" + "c" * 32]})  # fmt: skip
    found = api.ok("POST", "/v1/why", json={"file": "app.py", "project": "shop"})
    assert found["project"] == SHOP_A
    assert [memory["name"] for memory in found["file_memories"]["entities"]] == ["app-note"]
