"""work_package over digest packages: what prepare offers, what submit stages, and every refusal staging nothing."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from returns.pipeline import is_successful

from memesh.context import CallContext
from memesh.errors import ErrorCode
from memesh.store.sqlite import SqliteStore, open_store
from tests.calls import call
from tests.conftest import TEST_PROJECT
from tests.ops.curation_helpers import digest_result, seed, seed_week

PREPARE = {"action": "prepare", "project": TEST_PROJECT, "kind": "digest"}


def _prepare(store: SqliteStore, ctx: CallContext) -> dict[str, Any]:
    out: dict[str, Any] = call("work_package", store, PREPARE, ctx).unwrap()
    return out


def _submit(package: dict[str, Any], **result: Any) -> dict[str, Any]:
    return {"action": "submit", "package_id": package["id"], "ref": package["ref"], "result": digest_result(**result)}


def test_prepare_offers_one_iso_week_of_five_sources_with_a_strict_ref(fresh_db: SqliteStore, ctx: CallContext) -> None:
    ids = seed_week(fresh_db)
    out = _prepare(fresh_db, ctx)
    assert out["status"] == "available"
    assert out["available_action"] == [{"action": "submit", "actor": "agent"}, {"action": "defer", "actor": "agent"}]
    package = out["package"]
    assert package["ref"]["kind"] == "digest"
    assert package["ref"]["project"] == TEST_PROJECT
    assert package["ref"]["source_ids"] == ids
    assert len(package["ref"]["source_hash"]) == 64
    assert package["cluster_key"] == "2026-W48"
    assert [source["id"] for source in package["sources"]] == ids
    assert package["trust"] == "untrusted"
    assert package["limits"] == {"max_output_bytes": 16384, "max_results": 1}


def test_four_sources_in_a_week_are_not_a_package(fresh_db: SqliteStore, ctx: CallContext) -> None:
    seed_week(fresh_db, count=4)
    assert _prepare(fresh_db, ctx) == {"status": "none_available", "selection_mode": "calendar", "available_action": []}


def test_pinned_compacted_deep_out_of_band_old_and_foreign_memories_are_never_sources(
    fresh_db: SqliteStore, ctx: CallContext
) -> None:
    seed_week(fresh_db, count=4)
    seed(fresh_db, "pinned", metadata={"pin": True})
    seed(fresh_db, "compacted", metadata={"compacted_into": 99})
    seed(fresh_db, "deep", metadata={"consolidation_depth": 1})
    seed(fresh_db, "loud", metadata={"signal_score": 0.9})
    seed(fresh_db, "quiet", metadata={"signal_score": 0.1})
    seed(fresh_db, "a-decision", entity_type="decision")
    seed(fresh_db, "other-project", project="other~" + "1" * 32)
    seed(fresh_db, "too-old", created_at="2026-09-01 10:00:00")
    assert _prepare(fresh_db, ctx)["status"] == "none_available"
    seed(fresh_db, "fifth", created_at="2026-11-26 09:00:00", metadata={"signal_score": 0.7})
    assert len(_prepare(fresh_db, ctx)["package"]["sources"]) == 5


def test_a_week_over_one_hundred_sources_is_not_sliced(fresh_db: SqliteStore, ctx: CallContext) -> None:
    for i in range(101):
        seed(fresh_db, f"c-{i}", created_at=f"2026-11-24 {i // 60:02d}:{i % 60:02d}:00")
    assert _prepare(fresh_db, ctx)["status"] == "none_available"


def test_a_package_over_64_kib_is_not_offered(fresh_db: SqliteStore, ctx: CallContext) -> None:
    for i in range(5):
        seed(fresh_db, f"big-{i}", observations=("x" * 9000, "y" * 9000))
    assert _prepare(fresh_db, ctx)["status"] == "none_available"


def test_submit_stages_exactly_one_pending_proposal(fresh_db: SqliteStore, ctx: CallContext) -> None:
    seed_week(fresh_db)
    package = _prepare(fresh_db, ctx)["package"]
    staged = call("work_package", fresh_db, _submit(package), ctx).unwrap()
    assert staged == {
        "status": "staged",
        "proposal_id": staged["proposal_id"],
        "proposal_status": "pending",
        "review_authority": "human",
        "available_action": [],
    }
    [proposal] = fresh_db.proposals("pending")
    assert proposal.source_ids == package["ref"]["source_ids"]
    assert proposal.proposed["name"] == "week-48-digest"
    assert proposal.cluster_key == "2026-W48"


def test_replaying_the_identical_submission_reports_the_existing_proposal(
    fresh_db: SqliteStore, ctx: CallContext
) -> None:
    seed_week(fresh_db)
    package = _prepare(fresh_db, ctx)["package"]
    first = call("work_package", fresh_db, _submit(package), ctx).unwrap()
    again = call("work_package", fresh_db, _submit(package), ctx).unwrap()
    assert again["status"] == "existing"
    assert again["proposal_id"] == first["proposal_id"]
    assert len(fresh_db.proposals(None)) == 1


def test_a_different_result_for_a_staged_package_is_a_conflict(fresh_db: SqliteStore, ctx: CallContext) -> None:
    seed_week(fresh_db)
    package = _prepare(fresh_db, ctx)["package"]
    call("work_package", fresh_db, _submit(package), ctx).unwrap()
    error = call("work_package", fresh_db, _submit(package, name="another"), ctx).failure()
    assert error.code == ErrorCode.OPERATION_FAILED
    assert error.data["error"] == "submission_conflict"
    assert len(fresh_db.proposals(None)) == 1


def test_a_package_already_staged_is_not_offered_again(fresh_db: SqliteStore, ctx: CallContext) -> None:
    seed_week(fresh_db)
    package = _prepare(fresh_db, ctx)["package"]
    call("work_package", fresh_db, _submit(package), ctx).unwrap()
    assert _prepare(fresh_db, ctx)["status"] == "none_available"


def test_a_source_changed_since_prepare_makes_the_package_stale(fresh_db: SqliteStore, ctx: CallContext) -> None:
    seed_week(fresh_db)
    package = _prepare(fresh_db, ctx)["package"]
    call("remember", fresh_db, {"name": "commit-2", "type": "commit", "observations": ["edited since"]}, ctx).unwrap()
    error = call("work_package", fresh_db, _submit(package), ctx).failure()
    assert error.data["error"] == "stale_package"
    assert fresh_db.proposals(None) == []


def test_a_forged_ref_or_package_id_stages_nothing(fresh_db: SqliteStore, ctx: CallContext) -> None:
    seed_week(fresh_db)
    package = _prepare(fresh_db, ctx)["package"]
    forged_hash = {**package, "ref": {**package["ref"], "source_hash": "0" * 64}}
    assert call("work_package", fresh_db, _submit(forged_hash), ctx).failure().data["error"] == "stale_package"
    forged_id = {**package, "id": "f" * 64}
    assert call("work_package", fresh_db, _submit(forged_id), ctx).failure().data["error"] == "stale_package"
    other = {**package, "ref": {**package["ref"], "project": "other~" + "1" * 32}}
    assert call("work_package", fresh_db, _submit(other), ctx).failure().data["error"] == "stale_package"
    unsorted = {**package, "ref": {**package["ref"], "source_ids": package["ref"]["source_ids"][::-1]}}
    assert call("work_package", fresh_db, _submit(unsorted), ctx).failure().code == ErrorCode.BAD_BODY
    assert fresh_db.proposals(None) == []


def test_a_result_over_its_caps_or_of_the_wrong_type_is_refused(fresh_db: SqliteStore, ctx: CallContext) -> None:
    seed_week(fresh_db)
    package = _prepare(fresh_db, ctx)["package"]
    too_big = call("work_package", fresh_db, _submit(package, observations=["z" * 9000, "z" * 9000]), ctx)
    assert too_big.failure().code == ErrorCode.BAD_BODY
    assert "16384" in too_big.failure().message
    wrong_type = call("work_package", fresh_db, _submit(package, type="decision"), ctx).failure()
    assert wrong_type.message.startswith("result.type:")
    project_tag = call("work_package", fresh_db, _submit(package, tags=["project:elsewhere"]), ctx).failure()
    assert project_tag.message.startswith("result.tags.0:")
    no_obs = call("work_package", fresh_db, _submit(package, observations=[]), ctx).failure()
    assert no_obs.message.startswith("result.observations:")
    assert fresh_db.proposals(None) == []


def test_a_missing_field_is_named_for_the_action_given(fresh_db: SqliteStore, ctx: CallContext) -> None:
    error = call("work_package", fresh_db, {"action": "defer", "package_id": "a" * 64, "reason": "not_now"}, ctx)
    assert error.failure().message == "ref: Invalid input: expected object, received undefined"
    unknown = call("work_package", fresh_db, {"action": "apply"}, ctx).failure()
    assert unknown.message == 'action: Invalid option: expected one of "prepare"|"submit"|"defer"'


def test_secrets_in_a_result_are_redacted_before_staging(fresh_db: SqliteStore, ctx: CallContext) -> None:
    seed_week(fresh_db)
    package = _prepare(fresh_db, ctx)["package"]
    secret = "ghp_" + "a" * 36
    call("work_package", fresh_db, _submit(package, observations=[f"token {secret} leaked"]), ctx).unwrap()
    [proposal] = fresh_db.proposals(None)
    assert secret not in str(proposal.proposed)
    assert "***REDACTED***" in proposal.proposed["observations"][0]


def test_defer_changes_nothing_and_the_same_package_comes_back(fresh_db: SqliteStore, ctx: CallContext) -> None:
    seed_week(fresh_db)
    package = _prepare(fresh_db, ctx)["package"]
    defer = {"action": "defer", "package_id": package["id"], "ref": package["ref"], "reason": "not_now"}
    assert call("work_package", fresh_db, defer, ctx).unwrap() == {
        "status": "deferred",
        "durable_change": False,
        "available_action": [],
    }
    assert fresh_db.proposals(None) == []
    assert _prepare(fresh_db, ctx)["package"]["id"] == package["id"]


def test_two_agents_submitting_for_one_package_at_once_stage_one_proposal(tmp_path: Path, ctx: CallContext) -> None:
    db = tmp_path / "shared.db"
    setup = open_store(db)
    seed_week(setup)
    package = _prepare(setup, ctx)["package"]
    setup.close()
    answers: list[Any] = []
    barrier = threading.Barrier(4)

    def agent(name: str) -> None:
        store = open_store(db)  # each agent is its own connection, as two MCP servers would be
        barrier.wait()
        answers.append(call("work_package", store, _submit(package, name=name), ctx))
        store.close()

    threads = [threading.Thread(target=agent, args=(f"digest-{i % 2}",)) for i in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    check = open_store(db)
    assert len(check.proposals(None)) == 1
    check.close()
    outcomes = [a.unwrap()["status"] if is_successful(a) else a.failure().data["error"] for a in answers]
    assert outcomes.count("staged") == 1
    assert set(outcomes) <= {"staged", "existing", "submission_conflict"}


def test_a_member_prepares_no_package_of_another_members_personal_memories_and_no_project_outside_its_scope(
    fresh_db: SqliteStore, ctx: CallContext
) -> None:
    from dataclasses import replace

    from memesh.context import Caller

    ids = seed_week(fresh_db)  # the hooks' captures: personal, with no author (the owner's)
    with fresh_db.transaction():
        fresh_db.conn.execute("UPDATE entities SET author = 'bea'")
    bea = replace(ctx, caller=Caller("bea", "writer"))
    carl = replace(ctx, caller=Caller("carl", "writer"))
    assert [s["id"] for s in call("work_package", fresh_db, PREPARE, bea).unwrap()["package"]["sources"]] == ids
    assert call("work_package", fresh_db, PREPARE, carl).unwrap()["status"] == "none_available"
    transcript = call("work_package", fresh_db, {**PREPARE, "kind": "transcript"}, carl).failure()
    assert transcript.code is ErrorCode.AUTH_FORBIDDEN
    # The door refuses work_package to a scoped member; the operation refuses another project too, on its own.
    from memesh.app.resources import Resources
    from memesh.ops.work_package import work_package

    outside = replace(ctx, caller=Caller("dana", "writer", ("other~" + "1" * 32,)))
    refused = work_package(Resources.over(fresh_db), PREPARE, ctx=outside)  # type: ignore[arg-type]
    assert refused.failure().code is ErrorCode.AUTH_FORBIDDEN
    inside = replace(ctx, caller=Caller("dana", "writer", (TEST_PROJECT,)))
    assert work_package(Resources.over(fresh_db), PREPARE, ctx=inside).unwrap()["status"] == "none_available"  # type: ignore[arg-type]
