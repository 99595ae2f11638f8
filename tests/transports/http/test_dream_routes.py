"""The review surface over HTTP: list, show, accept and reject staged proposals, in the spec's envelopes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from memesh.context import CallContext
from tests.backends import Backend
from tests.calls import call
from tests.conftest import TEST_PROJECT
from tests.ops.curation_helpers import digest_result, seed_week
from tests.transports.http.conftest import Api


@pytest.fixture
def staged(db_file: Path, backend: Backend, ctx: CallContext) -> int:
    store = backend.open(db_file)
    try:
        seed_week(store)
        prepare = {"action": "prepare", "project": TEST_PROJECT, "kind": "digest"}
        package = call("work_package", store, prepare, ctx).unwrap()["package"]
        submit: dict[str, Any] = {
            "action": "submit",
            "package_id": package["id"],
            "ref": package["ref"],
            "result": digest_result(),
        }
        proposal_id: int = call("work_package", store, submit, ctx).unwrap()["proposal_id"]
    finally:
        store.close()
    return proposal_id


def test_the_queue_lists_pending_proposals_by_default(api: Api, staged: int) -> None:
    [row] = api.ok("GET", "/v1/dream/proposals")
    assert row["id"] == staged and row["kind"] == "digest" and row["source_kind"] == "entities"
    assert set(row) == {
        "id",
        "project",
        "cluster_key",
        "source_count",
        "digest_name",
        "digest_observations_preview",
        "status",
        "created_at",
        "kind",
        "source_kind",
    }
    assert api.ok("GET", "/v1/dream/proposals?status=applied") == []
    assert len(api.ok("GET", "/v1/dream/proposals?status=all")) == 1
    api.fails("GET", "/v1/dream/proposals?status=bogus", 400, "validation.bad-param")


def test_detail_carries_the_complete_payload(api: Api, staged: int) -> None:
    shown = api.ok("GET", f"/v1/dream/proposals/{staged}")
    assert shown["proposed_digest"]["name"] == "week-48-digest"
    assert shown["source_ids"] == [1, 2, 3, 4, 5]
    api.fails("GET", "/v1/dream/proposals/999", 404, "resource.not-found")
    api.fails("GET", "/v1/dream/proposals/abc", 400, "validation.bad-param")
    api.fails("GET", "/v1/dream/proposals/0", 400, "validation.bad-param")


def test_accept_applies_once_and_answers_the_spec_shape(api: Api, staged: int) -> None:
    out = api.ok("POST", f"/v1/dream/proposals/{staged}/accept")
    assert out == {
        "proposalId": staged,
        "digestEntityName": "week-48-digest",
        "sourcesArchived": 5,
        "sourcesLinked": 5,
        "kind": "digest",
    }
    api.fails("POST", f"/v1/dream/proposals/{staged}/accept", 400, "operation.failed")
    assert api.ok("GET", "/v1/entities/week-48-digest")["type"] == "digest"


def test_reject_with_or_without_a_reason_changes_no_memory(api: Api, staged: int) -> None:
    api.fails("POST", f"/v1/dream/proposals/{staged}/reject", 400, "validation.bad-body", json={"reason": "x" * 501})
    api.fails("POST", f"/v1/dream/proposals/{staged}/reject", 400, "validation.bad-body", json={"why": "x"})
    assert api.ok("POST", f"/v1/dream/proposals/{staged}/reject", json={"reason": "vague"}) == {
        "id": staged,
        "status": "rejected",
    }
    assert api.ok("GET", f"/v1/dream/proposals/{staged}")["reason"] == "vague"
    api.fails("POST", f"/v1/dream/proposals/{staged}/reject", 400, "operation.failed")
    api.fails("POST", "/v1/dream/proposals/998/reject", 404, "resource.not-found")
    assert [e.get("archived", False) for e in api.ok("GET", "/v1/entities?limit=10")] == [False] * 5


def test_consolidate_answers_410_naming_the_review_routes(api: Api) -> None:
    body = api.fails("POST", "/v1/consolidate", 410, "route.retired", json={})
    assert "/v1/dream/proposals" in body["error"] and "work_package" in body["error"]
    assert api.ok("GET", "/v1/dream/proposals") == []


def test_work_package_and_improvement_are_not_http_routes(api: Api) -> None:
    api.fails("POST", "/v1/work_package", 404, "route.not-found", json={})
    api.fails("POST", "/v1/improvement", 404, "route.not-found", json={})
