"""The human review of proposals: list, show, accept in one transaction, reject changing no memory."""

from __future__ import annotations

from typing import Any

from memesh.context import CallContext
from memesh.errors import ErrorCode
from memesh.store.sqlite import SqliteStore
from tests.calls import call
from tests.conftest import TEST_PROJECT
from tests.ops import review_calls
from tests.ops.curation_helpers import digest_result, seed_week

PREPARE = {"action": "prepare", "project": TEST_PROJECT, "kind": "digest"}


def _stage(store: SqliteStore, ctx: CallContext, **result: Any) -> int:
    package = call("work_package", store, PREPARE, ctx).unwrap()["package"]
    submit = {"action": "submit", "package_id": package["id"], "ref": package["ref"], "result": digest_result(**result)}
    proposal_id: int = call("work_package", store, submit, ctx).unwrap()["proposal_id"]
    return proposal_id


def test_the_queue_lists_pending_proposals_with_their_summary(fresh_db: SqliteStore, ctx: CallContext) -> None:
    seed_week(fresh_db)
    proposal_id = _stage(fresh_db, ctx)
    [row] = review_calls.listed(fresh_db).unwrap()
    assert row == {
        "id": proposal_id,
        "project": TEST_PROJECT,
        "cluster_key": "2026-W48",
        "source_count": 5,
        "digest_name": "week-48-digest",
        "digest_observations_preview": "Five small fixes landed in the parser.",
        "status": "pending",
        "created_at": row["created_at"],
        "kind": "digest",
        "source_kind": "entities",
    }
    assert review_calls.listed(fresh_db, "applied").unwrap() == []
    assert review_calls.listed(fresh_db, "bogus").failure().code == ErrorCode.BAD_BODY  # the gate: not a status


def test_show_returns_the_complete_payload(fresh_db: SqliteStore, ctx: CallContext) -> None:
    ids = seed_week(fresh_db)
    proposal_id = _stage(fresh_db, ctx)
    shown = review_calls.show(fresh_db, proposal_id).unwrap()
    assert shown["source_ids"] == ids
    assert shown["proposed_digest"]["observations"] == ["Five small fixes landed in the parser."]
    assert shown["proposed_digest"]["tags"] == ["topic:parser"]
    assert shown["reason"] is None and shown["reviewed_at"] is None
    assert review_calls.show(fresh_db, 999).failure().code == ErrorCode.NOT_FOUND


def test_accept_creates_the_digest_links_and_archives_its_sources(fresh_db: SqliteStore, ctx: CallContext) -> None:
    ids = seed_week(fresh_db)
    proposal_id = _stage(fresh_db, ctx)
    out = review_calls.accept(fresh_db, proposal_id, ctx=ctx).unwrap()
    assert out == {
        "proposalId": proposal_id,
        "digestEntityName": "week-48-digest",
        "sourcesArchived": 5,
        "sourcesLinked": 5,
        "kind": "digest",
    }
    digest = fresh_db.find("week-48-digest")
    assert digest is not None
    assert digest.type == "digest"
    assert f"project:{TEST_PROJECT}" in digest.tags
    assert digest.metadata["consolidation_depth"] == 1
    assert digest.metadata["source_ids"] == ids
    assert digest.metadata["proposal_id"] == proposal_id
    assert sorted(r.to_name for r in digest.relations if r.type == "summarizes") == [f"commit-{i}" for i in range(5)]
    for source in fresh_db.load(ids):
        assert source.status == "archived"
        assert source.metadata["compacted_into"] == digest.id
    [row] = review_calls.listed(fresh_db, "applied").unwrap()
    assert row["status"] == "applied"


def test_accepting_twice_is_refused_and_changes_nothing_more(fresh_db: SqliteStore, ctx: CallContext) -> None:
    seed_week(fresh_db)
    proposal_id = _stage(fresh_db, ctx)
    review_calls.accept(fresh_db, proposal_id, ctx=ctx).unwrap()
    count = fresh_db.count()
    error = review_calls.accept(fresh_db, proposal_id, ctx=ctx).failure()
    assert error.code == ErrorCode.OPERATION_FAILED
    assert fresh_db.count() == count
    assert review_calls.accept(fresh_db, 999, ctx=ctx).failure().code == ErrorCode.NOT_FOUND


def test_a_proposal_whose_source_changed_is_refused_and_marked_rejected(
    fresh_db: SqliteStore, ctx: CallContext
) -> None:
    ids = seed_week(fresh_db)
    proposal_id = _stage(fresh_db, ctx)
    call("remember", fresh_db, {"name": "commit-3", "type": "commit", "observations": ["changed later"]}, ctx).unwrap()
    count = fresh_db.count()
    error = review_calls.accept(fresh_db, proposal_id, ctx=ctx).failure()
    assert error.code == ErrorCode.OPERATION_FAILED
    assert fresh_db.count() == count
    assert all(source.status == "active" for source in fresh_db.load(ids))
    shown = review_calls.show(fresh_db, proposal_id).unwrap()
    assert shown["status"] == "rejected"
    assert "changed" in shown["reason"]


def test_a_proposal_pinned_after_staging_cannot_archive_the_pinned_source(
    fresh_db: SqliteStore, ctx: CallContext
) -> None:
    from memesh.app.operations.maintenance import PIN
    from tests.calls import run

    ids = seed_week(fresh_db)
    proposal_id = _stage(fresh_db, ctx)
    run(PIN, fresh_db, {"name": "commit-0", "pinned": True}, ctx).unwrap()
    assert review_calls.accept(fresh_db, proposal_id, ctx=ctx).failure().code == ErrorCode.OPERATION_FAILED
    assert fresh_db.load(ids[:1])[0].status == "active"


def test_a_proposal_with_every_source_forgotten_is_rejected_as_resolved(
    fresh_db: SqliteStore, ctx: CallContext
) -> None:
    seed_week(fresh_db)
    proposal_id = _stage(fresh_db, ctx)
    for i in range(5):
        call("forget", fresh_db, {"name": f"commit-{i}"}, ctx).unwrap()
    error = review_calls.accept(fresh_db, proposal_id, ctx=ctx).failure()
    assert error.code == ErrorCode.OPERATION_FAILED
    assert fresh_db.find("week-48-digest") is None
    assert review_calls.show(fresh_db, proposal_id).unwrap()["status"] == "rejected"
    assert review_calls.listed(fresh_db).unwrap() == []


def test_a_digest_claims_only_the_sources_still_there(fresh_db: SqliteStore, ctx: CallContext) -> None:
    seed_week(fresh_db)
    proposal_id = _stage(fresh_db, ctx)
    call("forget", fresh_db, {"name": "commit-4"}, ctx).unwrap()
    out = review_calls.accept(fresh_db, proposal_id, ctx=ctx).unwrap()
    assert out["sourcesArchived"] == 4
    assert out["sourcesMissing"] == 1


def test_a_digest_never_merges_into_a_memory_of_the_same_name(fresh_db: SqliteStore, ctx: CallContext) -> None:
    seed_week(fresh_db)
    proposal_id = _stage(fresh_db, ctx)
    call("remember", fresh_db, {"name": "week-48-digest", "type": "note", "observations": ["mine"]}, ctx).unwrap()
    out = review_calls.accept(fresh_db, proposal_id, ctx=ctx).unwrap()
    assert out["digestEntityName"] == f"week-48-digest (digest #{proposal_id})"
    mine = fresh_db.find("week-48-digest")
    assert mine is not None and mine.observations == ["mine"]


def test_reject_records_the_reason_and_changes_no_memory(fresh_db: SqliteStore, ctx: CallContext) -> None:
    ids = seed_week(fresh_db)
    proposal_id = _stage(fresh_db, ctx)
    before = [(e.status, e.metadata) for e in fresh_db.load(ids)]
    out = review_calls.reject(fresh_db, proposal_id, "too vague", ctx=ctx).unwrap()
    assert out == {"id": proposal_id, "status": "rejected"}
    assert [(e.status, e.metadata) for e in fresh_db.load(ids)] == before
    shown = review_calls.show(fresh_db, proposal_id).unwrap()
    assert shown["reason"] == "too vague"
    assert shown["reviewed_at"] is not None
    again = review_calls.reject(fresh_db, proposal_id, None, ctx=ctx).failure()
    assert again.code == ErrorCode.OPERATION_FAILED
    assert review_calls.accept(fresh_db, proposal_id, ctx=ctx).failure().code == ErrorCode.OPERATION_FAILED


def test_a_rejected_package_is_not_offered_again(fresh_db: SqliteStore, ctx: CallContext) -> None:
    seed_week(fresh_db)
    proposal_id = _stage(fresh_db, ctx)
    review_calls.reject(fresh_db, proposal_id, None, ctx=ctx).unwrap()
    assert call("work_package", fresh_db, PREPARE, ctx).unwrap()["status"] == "none_available"


def test_the_project_tag_of_an_accepted_digest_is_the_proposals_own(fresh_db: SqliteStore, ctx: CallContext) -> None:
    seed_week(fresh_db)
    proposal_id = _stage(fresh_db, ctx)
    review_calls.accept(fresh_db, proposal_id, ctx=ctx).unwrap()
    digest = fresh_db.find("week-48-digest")
    assert digest is not None
    assert [tag for tag in digest.tags if tag.startswith("project:")] == [f"project:{TEST_PROJECT}"]
