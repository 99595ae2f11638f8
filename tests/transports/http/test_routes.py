"""The routes: health, the three tools, entity listing and lookup, retired and unknown routes."""

from __future__ import annotations

from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest

import memesh
from memesh.app import dispatch
from memesh.transports.http.app import create_app

from .conftest import Api


def remember(api: Api, **fields: Any) -> Any:
    return api.ok("POST", "/v1/remember", json=fields)


def test_health_reports_version_and_entity_count(api: Api) -> None:
    assert api.ok("GET", "/v1/health") == {"status": "ok", "version": memesh.__version__, "entity_count": 0}
    remember(api, name="a", type="note", observations=["x"])
    assert api.ok("GET", "/v1/health")["entity_count"] == 1


def test_health_answers_503_when_the_database_cannot_be_opened(tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    app = create_app(db_path=blocker / "knowledge-graph.db")
    body = Api(app).fails("GET", "/v1/health", 503, "server.internal")
    assert body["error"].startswith("cannot open the database")
    assert str(tmp_path) not in body["error"]


def test_health_on_a_damaged_file_says_it_is_damaged_with_503(tmp_path: Path) -> None:
    db = tmp_path / "memesh" / "knowledge-graph.db"
    db.parent.mkdir()
    db.write_bytes(b"SQLite format 3\x00" + b"\xff" * 4080)
    body = Api(create_app(db_path=db)).fails("GET", "/v1/health", 503, "server.internal")
    assert "damaged" in body["error"] or "not a SQLite database" in body["error"]
    assert str(tmp_path) not in body["error"]


def test_health_on_a_file_that_is_not_a_database_says_so_with_503(tmp_path: Path) -> None:
    db = tmp_path / "memesh" / "knowledge-graph.db"
    db.parent.mkdir()
    db.write_text("these are my notes, not a database\n" * 200)
    body = Api(create_app(db_path=db)).fails("GET", "/v1/health", 503, "server.internal")
    assert "not a SQLite database" in body["error"]


def test_remember_then_recall_returns_the_memory_with_http_provenance(api: Api) -> None:
    stored = remember(api, name="auth-decision", type="decision", observations=["Use OAuth 2.0"])
    assert stored["stored"] is True
    assert stored["name"] == "auth-decision"
    found = api.ok("POST", "/v1/recall", json={"query": "oauth"})
    assert [e["name"] for e in found["entities"]] == ["auth-decision"]
    assert found["entities"][0]["metadata"]["provenance"]["source_host"] == "http"


def test_recall_over_http_keeps_file_tags_and_is_not_size_capped(api: Api) -> None:
    lines = [f"line {i} " + "word " * 1900 for i in range(10)]
    remember(api, name="big", type="note", observations=lines, tags=["file:src/a.py"])
    found = api.ok("POST", "/v1/recall", json={"query": "word"})
    entity = found["entities"][0]
    assert "file:src/a.py" in entity["tags"]
    assert len(entity["observations"]) == 10
    assert "truncated" not in found


def test_schema_failure_is_bad_body_with_the_field_path(api: Api) -> None:
    body = api.fails("POST", "/v1/remember", 400, "validation.bad-body", json={"name": "x", "type": 5})
    assert body["error"].startswith("type: ")


def test_unknown_key_is_refused_with_its_name(api: Api) -> None:
    body = api.fails("POST", "/v1/recall", 400, "validation.bad-body", json={"query": "x", "bogus": 1})
    assert "bogus" in body["error"]


def test_null_is_not_treated_as_absent_over_http(api: Api) -> None:
    remember(api, name="a", type="note", observations=["x"])
    body = api.fails("POST", "/v1/forget", 400, "validation.bad-body", json={"name": "a", "observation": None})
    assert body["error"].startswith("observation: ")


def test_forget_archives_the_memory(api: Api) -> None:
    remember(api, name="a", type="note", observations=["x"])
    assert api.ok("POST", "/v1/forget", json={"name": "a"}) == {"archived": True, "name": "a"}


def test_forget_of_a_missing_memory_is_resource_not_found(api: Api) -> None:
    body = api.fails("POST", "/v1/forget", 404, "resource.not-found", json={"name": "ghost"})
    assert body["error"] == 'Entity "ghost" not found'


def test_forget_of_an_unmatched_observation_is_resource_not_found(api: Api) -> None:
    remember(api, name="a", type="note", observations=["x"])
    api.fails("POST", "/v1/forget", 404, "resource.not-found", json={"name": "a", "observation": "y"})


def test_an_operation_refusal_is_operation_failed(api: Api) -> None:
    remember(api, name="a", type="note", observations=["x"])
    api.ok("POST", "/v1/forget", json={"name": "a"})
    api.fails(
        "POST", "/v1/remember", 400, "operation.failed", json={"name": "a", "observations": ["y"], "replace": True}
    )


def test_entities_lists_newest_first_with_archived_ones(api: Api) -> None:
    for name in ("one", "two", "three"):
        remember(api, name=name, type="note", observations=[name])
    api.ok("POST", "/v1/forget", json={"name": "two"})
    listed = api.ok("GET", "/v1/entities")
    assert [e["name"] for e in listed] == ["three", "two", "one"]
    assert listed[1]["archived"] is True


def test_entities_filters_by_type_and_honours_limit(api: Api) -> None:
    remember(api, name="d1", type="decision", observations=["x"])
    remember(api, name="n1", type="note", observations=["x"])
    remember(api, name="d2", type="decision", observations=["x"])
    assert [e["name"] for e in api.ok("GET", "/v1/entities?type=decision")] == ["d2", "d1"]
    assert [e["name"] for e in api.ok("GET", "/v1/entities?limit=1")] == ["d2"]


def test_entities_listing_does_not_count_access(api: Api) -> None:
    remember(api, name="a", type="note", observations=["x"])
    api.ok("GET", "/v1/entities")
    api.ok("GET", "/v1/entities/a")
    assert api.ok("GET", "/v1/entities")[0]["access_count"] == 0


@pytest.mark.parametrize("limit", ["0", "5001", "abc", "1.5", "-1", "", "٣", "9" * 5000])
def test_entities_refuses_a_bad_limit_naming_the_parameter(api: Api, limit: str) -> None:
    body = api.fails("GET", f"/v1/entities?limit={quote(limit)}", 400, "validation.bad-param")
    assert "limit" in body["error"]


def test_entities_refuses_a_repeated_parameter(api: Api) -> None:
    body = api.fails("GET", "/v1/entities?limit=1&limit=2", 400, "validation.bad-param")
    assert "limit" in body["error"]


def test_entities_accepts_the_largest_limit(api: Api) -> None:
    assert api.ok("GET", "/v1/entities?limit=5000") == []


def test_entity_lookup_returns_full_metadata_with_replaced_history(api: Api) -> None:
    remember(api, name="a", type="note", observations=["old"], tags=["file:src/x.py"])
    remember(api, name="a", observations=["new"], replace=True)
    entity = api.ok("GET", "/v1/entities/a")
    assert entity["observations"] == ["new"]
    assert entity["metadata"]["replaced_history"][0]["observations"] == ["old"]
    assert "replaced_history_count" not in entity["metadata"]
    assert "file:src/x.py" in entity["tags"]


def test_entity_listing_returns_full_metadata_too(api: Api) -> None:
    remember(api, name="a", type="note", observations=["old"])
    remember(api, name="a", observations=["new"], replace=True)
    assert len(api.ok("GET", "/v1/entities")[0]["metadata"]["replaced_history"]) == 1


def test_entity_lookup_decodes_the_name_from_the_url(api: Api) -> None:
    remember(api, name="a b/c ü", type="note", observations=["x"])
    assert api.ok("GET", "/v1/entities/" + quote("a b/c ü", safe=""))["name"] == "a b/c ü"


def test_entity_lookup_of_a_missing_name_is_resource_not_found(api: Api) -> None:
    body = api.fails("GET", "/v1/entities/nope", 404, "resource.not-found")
    assert body["error"] == 'Entity "nope" not found'


@pytest.mark.parametrize("route", ["consolidate", "verify"])
def test_retired_routes_answer_410_with_a_pointer(api: Api, route: str) -> None:
    body = api.fails("POST", f"/v1/{route}", 410, "route.retired", json={})
    assert body["error"].startswith(f"POST /v1/{route} is retired")


@pytest.mark.parametrize(
    ("method", "url", "path"),
    [
        ("GET", "/v1/nope?x=1", "/v1/nope"),
        ("DELETE", "/v1/health", "/v1/health"),
        ("GET", "/v1/remember", "/v1/remember"),
        ("GET", "/v1/consolidate", "/v1/consolidate"),
        ("POST", "/elsewhere", "/elsewhere"),
    ],
)
def test_unknown_routes_answer_404_with_the_legacy_code(api: Api, method: str, url: str, path: str) -> None:
    body = api.fails(method, url, 404, "route.not-found")
    assert body["code"] == "NOT_FOUND"
    assert body["error"] == f"No route for {method} {path}"


def test_security_headers_are_on_success_and_failure(api: Api) -> None:
    for response in (api.get("/v1/health"), api.get("/v1/nope")):
        assert response.headers["x-content-type-options"] == "nosniff"
        assert response.headers["x-frame-options"] == "DENY"
        assert response.headers["referrer-policy"] == "strict-origin-when-cross-origin"
        assert response.headers["content-type"].startswith("application/json")


def test_head_answers_like_get_without_a_body(api: Api) -> None:
    response = api.request("HEAD", "/v1/health")
    assert response.status_code == 200
    assert response.content == b""


def test_an_unexpected_exception_is_server_internal_without_details(
    api: Api, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def explode(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("secret /home/someone/path")

    monkeypatch.setattr(dispatch, "run", explode)
    body = api.fails("POST", "/v1/recall", 500, "server.internal", json={})
    assert "secret" not in body["error"]
    assert "RuntimeError" in capsys.readouterr().err
