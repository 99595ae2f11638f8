"""The HTTP routes of issue 3: export, import, learn, task state and config."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest


@pytest.fixture(autouse=True)
def _config_home(memesh_env: Path) -> None:
    """config.json lives in MEMESH_DIR; keep it inside the test's folder."""


def test_export_then_import_round_trips_over_http(api: Any) -> None:
    api.ok("POST", "/v1/remember", json={"name": "a", "type": "decision", "observations": ["x"], "tags": ["t"]})
    bundle = api.ok("POST", "/v1/export", json={})
    assert bundle["version"] == "3.1.0" and bundle["entity_count"] == 1
    api.ok("POST", "/v1/forget", json={"name": "a"})
    result = api.ok(
        "POST", "/v1/import", json={"data": bundle, "merge_strategy": "overwrite", "restore_archived": True}
    )
    assert result["imported"] == 1 and result["overwritten"] == 1


def test_import_ignores_bundle_metadata_over_http(api: Any) -> None:
    bundle = {"entities": [{"name": "a", "type": "t", "metadata": {"pin": True, "guard": {"p": "rm"}}}]}
    api.ok("POST", "/v1/import", json={"data": bundle, "merge_strategy": "skip"})
    entity = api.ok("GET", "/v1/entities/a")
    assert "pin" not in entity["metadata"] and "guard" not in entity["metadata"]


def test_import_without_a_merge_strategy_is_a_bad_body(api: Any) -> None:
    body = api.fails("POST", "/v1/import", 400, "validation.bad-body", json={"data": {"entities": []}})
    assert "merge_strategy" in body["error"]


def test_a_bundle_naming_a_memory_twice_is_refused_with_operation_failed(api: Any) -> None:
    bundle = {"entities": [{"name": "a", "type": "t"}, {"name": "a", "type": "t"}]}
    api.fails("POST", "/v1/import", 400, "operation.failed", json={"data": bundle, "merge_strategy": "skip"})


def test_learn_over_http_returns_the_lesson_name(api: Any) -> None:
    data = api.ok(
        "POST", "/v1/learn", json={"error": "Module not found: left-pad", "fix": "npm install", "project": "web"}
    )
    assert data == {"learned": True, "name": data["name"], "type": "lesson_learned"}
    assert data["name"].startswith("lesson-web-module-not-found-left-pad-")


def test_task_state_needs_the_project_parameter(api: Any) -> None:
    body = api.fails("GET", "/v1/task-state", 400, "validation.bad-param")
    assert "project" in body["error"]


def test_task_state_of_a_project_with_no_statement_is_empty(api: Any) -> None:
    assert api.ok("GET", "/v1/task-state?project=memesh") == {"project": "memesh", "state": {}}


def test_task_state_is_a_read_that_refuses_every_field_that_would_write(api: Any) -> None:
    for field in ("goal", "next", "blocked", "done"):
        body = api.fails("GET", f"/v1/task-state?project=memesh&{field}=x", 400, "validation.bad-param")
        assert body["error"].startswith(f"{field}: ")
    assert api.ok("GET", "/v1/task-state?project=memesh") == {"project": "memesh", "state": {}}
    assert api.ok("GET", "/v1/health")["entity_count"] == 0


def test_a_task_state_project_holding_a_credential_is_a_bad_param(api: Any) -> None:
    body = api.fails("GET", "/v1/task-state?project=sk-live-abcdefghijklmnop1234", 400, "validation.bad-param")
    assert body["error"].startswith("project: ")


def test_the_task_state_read_shows_what_the_tool_stated(api: Any) -> None:
    from memesh.context import CallContext
    from memesh.store.open import open_store
    from tests.calls import call

    store = open_store(api.app.runtime.db_path)
    try:
        ctx = CallContext(source_host="test", agent_view=False, project=lambda: "memesh")
        call("task_state", store, {"project": "memesh", "goal": "Ship 1.0"}, ctx).unwrap()
    finally:
        store.close()
    state = api.ok("GET", "/v1/task-state?project=memesh")["state"]
    assert state["goal"] == "Ship 1.0" and "updated_at" in state


def test_task_state_has_no_write_route(api: Any) -> None:
    api.fails("POST", "/v1/task_state", 404, "route.not-found", json={"goal": "x"})


def test_config_post_stores_a_partial_update_and_returns_what_is_stored(api: Any, memesh_env: Path) -> None:
    assert api.ok("GET", "/v1/config")["config"] == {}
    assert api.ok("POST", "/v1/config", json={"briefing": "standard", "sessionLimit": 20}) == {
        "briefing": "standard",
        "sessionLimit": 20,
    }
    assert api.ok("POST", "/v1/config", json={"autoCapture": False})["briefing"] == "standard"
    stored = json.loads((memesh_env.parent / "config.json").read_text())
    assert stored == {"briefing": "standard", "sessionLimit": 20, "autoCapture": False}


@pytest.mark.parametrize("body", [{"sessionLimit": 0}, {"sessionLimit": 101}, {"briefing": "max"}, {"theme": "dark"}])
def test_config_post_refuses_unknown_fields_and_out_of_range_values(api: Any, body: dict[str, Any]) -> None:
    api.fails("POST", "/v1/config", 400, "validation.bad-body", json=body)


@pytest.mark.parametrize("stored", [["odd"], {"level": "full"}, 3, None, True, "loud"])
def test_config_get_returns_a_stored_briefing_of_any_json_type(api: Any, memesh_env: Path, stored: Any) -> None:
    (memesh_env.parent).mkdir(parents=True, exist_ok=True)
    (memesh_env.parent / "config.json").write_text(json.dumps({"briefing": stored, "sessionLimit": 500}))
    assert api.ok("GET", "/v1/config")["config"] == {"briefing": stored, "sessionLimit": 500}
    assert api.ok("POST", "/v1/config", json={"autoCapture": True})["briefing"] == stored


def test_config_get_returns_a_stored_number_too_large_for_a_double_as_written(api: Any, memesh_env: Path) -> None:
    config_file = memesh_env.parent / "config.json"
    config_file.parent.mkdir(parents=True, exist_ok=True)
    config_file.write_text('{"sessionLimit": 1e400}')
    response = api.get("/v1/config")
    assert response.status_code == 200
    # above 100 the hooks use 100
    effective = '"effective":{"autoCapture":true,"sessionLimit":100,"briefing":"minimal","recallMode":"fts"}'
    assert response.text == '{"success":true,"data":{"config":{"sessionLimit":1e400},' + effective + "}}"
    api.ok("POST", "/v1/config", json={"autoCapture": True})
    assert json.loads(config_file.read_text(), parse_constant=pytest.fail) == {
        "sessionLimit": 1e400,
        "autoCapture": True,
    }


def test_an_unreadable_config_file_is_a_server_failure_that_names_no_path(api: Any, memesh_env: Path) -> None:
    config_file = memesh_env.parent / "config.json"
    config_file.parent.mkdir(parents=True, exist_ok=True)
    config_file.write_text("not json")
    read = api.fails("GET", "/v1/config", 500, "server.internal")
    assert read["error"] == "config.json exists but is not valid JSON. Fix or remove it, then retry."
    write = api.fails("POST", "/v1/config", 400, "operation.failed", json={"briefing": "full"})
    assert str(config_file.parent) not in write["error"]
    assert config_file.read_text() == "not json"
