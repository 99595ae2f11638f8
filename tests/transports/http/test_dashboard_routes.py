"""What the dashboard reads beyond the memories themselves, over the ASGI app: the address a person types, the
settings in effect, the index as fields and the graph."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.transports.http.conftest import Api


def test_the_server_address_itself_sends_a_browser_to_the_dashboard(api: Api) -> None:
    response = api.get("/")
    assert response.status_code == 307
    assert response.headers["location"] == "/dashboard"
    assert api.get("/", follow_redirects=True).headers["content-type"].startswith("text/html")
    described = api.ok("GET", "/v1/health")  # the API's own routes are unchanged
    assert "version" in described


@pytest.fixture
def no_setting_variables(monkeypatch: pytest.MonkeyPatch) -> None:
    for variable in ("MEMESH_AUTO_CAPTURE", "MEMESH_SESSION_LIMIT", "MEMESH_BRIEFING", "MEMESH_RECALL_MODE"):
        monkeypatch.delenv(variable, raising=False)


def test_config_says_capture_is_on_when_nothing_is_stored(
    api: Api, memesh_env: Path, no_setting_variables: None
) -> None:
    data = api.ok("GET", "/v1/config")
    effective = {"autoCapture": True, "sessionLimit": 10, "briefing": "minimal", "recallMode": "fts"}
    assert data == {"config": {}, "effective": effective}


def test_config_effective_follows_what_is_stored_and_the_server_environment(
    api: Api, memesh_env: Path, no_setting_variables: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    memesh_env.parent.mkdir(parents=True, exist_ok=True)
    stored = {"autoCapture": False, "sessionLimit": 500, "recallMode": "broad"}
    (memesh_env.parent / "config.json").write_text(json.dumps(stored))
    data = api.ok("GET", "/v1/config")
    assert data["config"] == stored
    assert data["effective"] == {
        "autoCapture": False,
        "sessionLimit": 100,
        "briefing": "minimal",
        "recallMode": "broad",
    }
    monkeypatch.setenv("MEMESH_AUTO_CAPTURE", "on")
    monkeypatch.setenv("MEMESH_RECALL_MODE", "fts")
    effective = api.ok("GET", "/v1/config")["effective"]
    assert effective["autoCapture"] is True and effective["recallMode"] == "fts"


def test_the_briefing_index_gives_each_listed_memory_as_fields(api: Api) -> None:
    remember = {"name": "keep-it-small", "type": "decision", "title": "Keep it small", "tags": ["project:web"],
                "observations": ["Fewer moving parts", "second line"]}  # fmt: skip
    stored = api.ok("POST", "/v1/remember", json=remember)
    api.ok("POST", "/v1/remember", json={"name": "untitled-pattern", "type": "pattern", "tags": ["project:web"],
                                         "observations": ["No title here"]})  # fmt: skip
    data = api.ok("GET", "/v1/briefing-index?project=web")
    entries = {entry["name"]: entry for entry in data["entries"]}
    assert [entry["id"] for entry in data["entries"]] == data["ids"]
    assert entries["keep-it-small"] == {
        "id": stored["entityId"],
        "name": "keep-it-small",
        "type": "decision",
        "title": "Keep it small",
        "snippet": "Fewer moving parts",
        "activity": entries["keep-it-small"]["activity"],
    }
    assert entries["untitled-pattern"]["title"] == "untitled-pattern"  # as the index line names it


def _remember(api: Api, name: str, **fields: Any) -> None:
    api.ok("POST", "/v1/remember", json={"name": name, "type": "decision", "observations": [name], **fields})


def test_the_graph_route_answers_the_most_connected_and_a_neighbourhood(api: Api) -> None:
    _remember(api, "a")
    _remember(api, "b", relations=[{"to": "a", "type": "contradicts"}])
    _remember(api, "c")
    whole = api.ok("GET", "/v1/graph")
    assert [node["name"] for node in whole["nodes"]][:2] == ["b", "a"]
    assert whole["edges"] == [{"from": "b", "to": "a", "type": "contradicts"}]
    around = api.ok("GET", "/v1/graph?center=a&depth=1")
    assert [(node["name"], node["hops"]) for node in around["nodes"]] == [("a", 0), ("b", 1)]
    assert api.ok("GET", "/v1/graph?limit=1")["truncated"] is True
    api.fails("GET", "/v1/graph?center=zzz", 404, "resource.not-found")


@pytest.mark.parametrize("query", ["limit=0", "limit=501", "depth=4", "include_archived=maybe", "colour=red"])
def test_the_graph_route_refuses_a_bad_parameter(api: Api, query: str) -> None:
    api.fails("GET", f"/v1/graph?{query}", 400, "validation.bad-param")
