"""POST /v1/recall with `since` / `until` (issue 38): a filter like `tag`, and a bad value's 400 naming the field."""

from __future__ import annotations

from typing import Any

from tests.transports.http.conftest import Api

OLD = [
    {"name": f"auth-{year}", "type": "note", "observations": [f"auth: {what}"], "created_at": f"{year}-03-03 10:00:00"}
    for year, what in ((2020, "sessions"), (2021, "tokens"))
]


def seeded(api: Api) -> None:
    bundle = {"version": "3.1.0", "exported_at": "2026-01-01T00:00:00Z", "entities": OLD}
    api.ok("POST", "/v1/import", json={"data": bundle, "merge_strategy": "skip"})
    api.ok("POST", "/v1/remember", json={"name": "auth-now", "type": "note", "observations": ["auth: passkeys"]})


def names(data: dict[str, Any]) -> list[str]:
    return [entity["name"] for entity in data["entities"]]


def test_recall_over_http_keeps_what_was_created_in_the_time_asked(api: Api) -> None:
    seeded(api)
    body = {"query": "auth", "since": "2020-01-01", "until": "2020-12-31T23:59:59Z"}
    assert names(api.ok("POST", "/v1/recall", json=body)) == ["auth-2020"]
    assert names(api.ok("POST", "/v1/recall", json={"query": "auth", "since": "past week"})) == ["auth-now"]
    assert set(names(api.ok("POST", "/v1/recall", json={"until": "2021-03-03"}))) == {"auth-2020", "auth-2021"}


def test_a_bad_until_over_http_is_a_bad_body_naming_the_field(api: Api) -> None:
    seeded(api)
    body = api.fails("POST", "/v1/recall", 400, "validation.bad-body", json={"query": "auth", "until": "someday"})
    assert body["error"].startswith("until: ")
    empty = api.fails("POST", "/v1/recall", 400, "validation.bad-body", json={"since": ""})
    assert empty["error"].startswith("since: ")
