"""improvement: propose is idempotent and changes no source; status reports the review; acceptance links sources."""

from __future__ import annotations

from typing import Any

from memesh.context import CallContext
from memesh.errors import ErrorCode
from memesh.store.sqlite import SqliteStore
from tests.calls import call
from tests.conftest import TEST_PROJECT
from tests.ops import review_calls


def _propose(**overrides: Any) -> dict[str, Any]:
    return {
        "action": "propose",
        "project": TEST_PROJECT,
        "source_names": ["lesson-a", "lesson-b"],
        "title": "Add claims and leases to shared work",
        "problem": "Two agents picked the same task twice last week.",
        "proposed_change": "Give shared work a claim with a lease.",
        "verification_scenario": "Two agents start the same task; only one gets the claim.",
        "success_criteria": ["No duplicated task in a week of use"],
        **overrides,
    }


def _sources(store: SqliteStore, ctx: CallContext) -> None:
    for name in ("lesson-a", "lesson-b"):
        call("remember", store, {"name": name, "type": "lesson_learned", "observations": [f"{name} text"]}, ctx)


def test_propose_stages_a_pending_proposal_with_the_review_commands(fresh_db: SqliteStore, ctx: CallContext) -> None:
    _sources(fresh_db, ctx)
    out = call("improvement", fresh_db, _propose(), ctx).unwrap()
    pid = out["proposal_id"]
    assert out["status"] == "pending"
    assert out["created"] is True
    assert out["title"] == "Add claims and leases to shared work"
    assert out["source_ids"] == [1, 2]
    assert out["review"] == {
        "required": True,
        "authority": "human",
        "state": "pending",
        "inspect": f"memesh dream show {pid}",
        "accept": f"memesh dream accept {pid}",
        "reject": f"memesh dream reject {pid} --reason <text>",
    }


def test_the_same_normalized_proposal_returns_the_same_id(fresh_db: SqliteStore, ctx: CallContext) -> None:
    _sources(fresh_db, ctx)
    first = call("improvement", fresh_db, _propose(), ctx).unwrap()
    spaced = _propose(title="  Add claims  and leases to shared work ", source_names=["lesson-b", "lesson-a"])
    again = call("improvement", fresh_db, spaced, ctx).unwrap()
    assert again["proposal_id"] == first["proposal_id"]
    assert again["created"] is False
    other = call("improvement", fresh_db, _propose(priority="p0"), ctx).unwrap()
    assert other["proposal_id"] != first["proposal_id"]


def test_missing_or_archived_sources_fail_and_stage_nothing(fresh_db: SqliteStore, ctx: CallContext) -> None:
    _sources(fresh_db, ctx)
    call("forget", fresh_db, {"name": "lesson-b"}, ctx).unwrap()
    error = call("improvement", fresh_db, _propose(source_names=["lesson-a", "lesson-b", "nope"]), ctx).failure()
    assert error.code == ErrorCode.OPERATION_FAILED
    assert "lesson-b" in error.message and "nope" in error.message
    assert fresh_db.proposals(None) == []


def test_more_than_twenty_sources_or_an_unknown_priority_is_refused(fresh_db: SqliteStore, ctx: CallContext) -> None:
    many = call("improvement", fresh_db, _propose(source_names=[f"s{i}" for i in range(21)]), ctx).failure()
    assert many.message.startswith("source_names:")
    assert call("improvement", fresh_db, _propose(priority="p4"), ctx).failure().message.startswith("priority:")
    missing = call("improvement", fresh_db, {"action": "status"}, ctx).failure()
    assert missing.message == "proposal_id: Invalid input: expected integer, received undefined"


def test_status_follows_the_review_to_the_accepted_memory(fresh_db: SqliteStore, ctx: CallContext) -> None:
    _sources(fresh_db, ctx)
    pid = call("improvement", fresh_db, _propose(), ctx).unwrap()["proposal_id"]
    pending = call("improvement", fresh_db, {"action": "status", "proposal_id": pid}, ctx).unwrap()
    assert pending["status"] == "pending"
    assert pending["accepted_entity_name"] is None
    accepted = review_calls.accept(fresh_db, pid, ctx=ctx).unwrap()
    assert accepted["kind"] == "product_improvement"
    assert accepted["sourcesArchived"] == 0 and accepted["sourcesLinked"] == 2
    status = call("improvement", fresh_db, {"action": "status", "proposal_id": pid}, ctx).unwrap()
    assert status["status"] == "applied"
    assert status["accepted_entity_name"] == accepted["digestEntityName"]
    assert status["reviewed_at"] is not None
    work = fresh_db.find(accepted["digestEntityName"])
    assert work is not None
    assert work.namespace == "team"
    assert {"implementation:unverified", "outcome:unverified", f"project:{TEST_PROJECT}"} <= set(work.tags)
    assert sorted(r.to_name for r in work.relations if r.type == "learned-from") == ["lesson-a", "lesson-b"]
    assert all(e.status == "active" for e in fresh_db.load([1, 2]))


def test_status_of_an_unknown_proposal_is_not_found(fresh_db: SqliteStore, ctx: CallContext) -> None:
    error = call("improvement", fresh_db, {"action": "status", "proposal_id": 7}, ctx).failure()
    assert error.code == ErrorCode.NOT_FOUND


def test_secrets_in_a_proposal_are_redacted_before_staging(fresh_db: SqliteStore, ctx: CallContext) -> None:
    _sources(fresh_db, ctx)
    secret = "sk-" + "b" * 40
    pid = call("improvement", fresh_db, _propose(problem=f"the key {secret} leaked"), ctx).unwrap()["proposal_id"]
    shown = review_calls.show(fresh_db, pid).unwrap()
    assert secret not in str(shown)
