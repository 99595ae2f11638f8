"""The read routes, the demo routes and the dashboard page over the ASGI app, as a browser or curl reaches them."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from memesh.core.update import CheckFailed
from memesh.transports.http.app import create_app
from tests.transports.http.conftest import Api


@pytest.fixture
def offline_api(db_file: Path, memesh_env: Path) -> Iterator[Api]:
    """An app whose package-index lookup fails as it does with no network."""

    def offline() -> str:
        raise CheckFailed("package index unavailable (URLError)")

    app = create_app(db_path=db_file, update_fetch=offline)
    yield Api(app)
    app.close()


@pytest.mark.parametrize("path", ["/v1/stats", "/v1/analytics", "/v1/analytics/pm", "/v1/patterns", "/v1/projects"])
def test_every_read_answers_on_an_empty_database(api: Api, path: str) -> None:
    assert api.ok("GET", path) is not None


def test_the_demo_tour_seeds_and_resets_through_http(api: Api) -> None:
    assert api.ok("POST", "/v1/demo/seed") == {"inserted": 12, "removed": 0}
    assert api.ok("GET", "/v1/stats")["totalEntities"] == 12
    assert api.ok("GET", "/v1/projects")[0]["source"] == "tag"
    assert api.ok("POST", "/v1/demo/reset") == {"inserted": 0, "removed": 12}
    assert api.ok("GET", "/v1/health")["entity_count"] == 0


def test_a_cross_site_page_cannot_reset_the_demo(api: Api) -> None:
    api.ok("POST", "/v1/demo/seed")
    api.fails("POST", "/v1/demo/reset", 403, "auth.cross-origin", headers={"Sec-Fetch-Site": "cross-site"})
    assert api.ok("GET", "/v1/stats")["totalEntities"] == 12


@pytest.mark.parametrize("window", ["0", "366", "seven", "1e3"])
def test_an_out_of_range_window_is_a_bad_param(api: Api, window: str) -> None:
    body = api.fails("GET", f"/v1/analytics/pm?window={window}", 400, "validation.bad-param")
    assert body["error"].startswith("window: ")


def test_the_pm_window_is_echoed(api: Api) -> None:
    assert api.ok("GET", "/v1/analytics/pm?window=7")["velocity"]["windowDays"] == 7


def test_patterns_take_the_tools_categories_as_a_comma_list(api: Api) -> None:
    assert set(api.ok("GET", "/v1/patterns?categories=workflow,strengths")) == {"workflow", "strengths"}
    api.fails("GET", "/v1/patterns?categories=moods", 400, "validation.bad-param")


def test_a_parameter_on_a_route_that_takes_none_is_refused(api: Api) -> None:
    api.fails("GET", "/v1/stats?verbose=1", 400, "validation.bad-param")


def test_update_status_without_network_is_the_failed_unknown_shape(offline_api: Api) -> None:
    data = offline_api.ok("GET", "/v1/update-status")
    assert data["checkSucceeded"] is False
    assert data["freshness"] == "unavailable"
    assert data["lastError"] == "package index unavailable (URLError)"
    assert data["latestVersion"] is None


def test_update_status_cached_reads_only_the_cache(db_file: Path, memesh_env: Path) -> None:
    calls: list[str] = []

    def lookup() -> str:
        calls.append("asked")
        return "9.9.9"

    app = create_app(db_path=db_file, update_fetch=lookup)
    try:
        api = Api(app)
        assert api.ok("GET", "/v1/update-status?cached=1")["source"] == "none"
        assert calls == []
        live = api.ok("GET", "/v1/update-status")
        assert (live["freshness"], live["updateAvailable"]) == ("fresh", True)
        assert api.ok("GET", "/v1/update-status?cached=1")["freshness"] == "cached"
        assert calls == ["asked"]
    finally:
        app.close()


def test_the_dashboard_is_one_self_contained_page_with_a_strict_policy(api: Api) -> None:
    response = api.get("/dashboard")
    assert response.status_code == 200
    assert response.headers["content-type"] == "text/html; charset=utf-8"
    policy = response.headers["content-security-policy"]
    assert "default-src 'none'" in policy
    assert "script-src 'sha256-" in policy
    assert "connect-src 'self'" in policy
    assert "unsafe-inline" not in policy
    html = response.text
    assert "<script src" not in html
    assert "http://" not in html.replace("http://www.w3.org/2000/svg", "")
    assert "https://" not in html
    assert ".innerHTML" not in html


def test_the_dashboard_answers_a_trailing_slash_and_head(api: Api) -> None:
    assert api.get("/dashboard/").status_code == 200
    head = api.request("HEAD", "/dashboard")
    assert head.status_code == 200
    assert head.content == b""


@pytest.mark.sqlite_only  # another program writes broken rows into the SQLite file
def test_broken_metadata_rows_never_make_analytics_fail(api: Api, db_file: Path) -> None:
    import sqlite3

    api.ok("GET", "/v1/health")
    with sqlite3.connect(db_file) as conn:
        conn.execute("INSERT INTO entities (name, type, metadata, created_at) VALUES ('x', 'note', '{bad', 'soon')")
    for path in ("/v1/stats", "/v1/analytics", "/v1/analytics/pm", "/v1/patterns", "/v1/projects"):
        assert api.ok("GET", path) is not None
    assert api.ok("POST", "/v1/demo/reset")["removed"] == 0


def test_a_memory_named_dot_or_dot_dot_is_read_by_its_name_in_the_query(api: Api) -> None:
    for name in (".", "..", "a/b c"):
        api.ok("POST", "/v1/remember", json={"name": name, "type": "fact", "observations": [f"named {name}"]})
        assert api.ok("GET", "/v1/entity", params={"name": name})["observations"] == [f"named {name}"]
    api.fails("GET", "/v1/entity", 400, "validation.bad-param")
    api.fails("GET", "/v1/entity", 404, "resource.not-found", params={"name": "nope"})


def test_the_entity_listing_pages_with_offset(api: Api) -> None:
    for name in ("first", "second", "third"):
        api.ok("POST", "/v1/remember", json={"name": name, "type": "note", "observations": [name]})
    assert [e["name"] for e in api.ok("GET", "/v1/entities?limit=2")] == ["third", "second"]
    assert [e["name"] for e in api.ok("GET", "/v1/entities?limit=2&offset=2")] == ["first"]
    assert api.ok("GET", "/v1/entities?offset=3") == []
    refused = api.get("/v1/entities?offset=-1")
    assert (refused.status_code, refused.json()["errorCode"]) == (400, "validation.bad-param")


def test_untagged_memories_sharing_a_name_prefix_are_listed_as_a_prefix_project(api: Api) -> None:
    for name in ("billing-retry-policy", "billing-refunds"):
        api.ok("POST", "/v1/remember", json={"name": name, "type": "decision", "observations": [name]})
    api.ok(
        "POST", "/v1/remember", json={"name": "web-x", "type": "note", "observations": ["x"], "tags": ["project:web"]}
    )
    listing = {row["name"]: row for row in api.ok("GET", "/v1/projects")}
    assert listing["billing"] == {"name": "billing", "count": 2, "types": ["decision"], "source": "prefix"}
    assert listing["web"]["source"] == "tag"


def test_stats_total_tags_counts_distinct_tags_not_tag_rows(api: Api) -> None:
    for name in ("one", "two", "three"):
        body = {"name": name, "type": "note", "observations": [name], "tags": ["project:shared", f"topic:{name}"]}
        api.ok("POST", "/v1/remember", json=body)
    stats = api.ok("GET", "/v1/stats")
    assert stats["totalTags"] == 4  # project:shared on three memories is one tag
    assert {"tag": "project:shared", "count": 3} in stats["tagDistribution"]


def test_update_status_of_a_distribution_the_index_does_not_know_is_a_check_that_found_nothing_to_update(
    db_file: Path, memesh_env: Path
) -> None:
    app = create_app(db_path=db_file, update_fetch=lambda: None)  # the index answered 404: not published there
    try:
        api = Api(app)
        live = api.ok("GET", "/v1/update-status")
        assert (live["checkSucceeded"], live["lastError"], live["latestVersion"]) == (True, None, None)
        assert (live["freshness"], live["source"], live["updateAvailable"]) == ("fresh", "live", False)
        cached = api.ok("GET", "/v1/update-status?cached=1")
        assert (cached["checkSucceeded"], cached["freshness"], cached["source"]) == (True, "cached", "cache")
    finally:
        app.close()
