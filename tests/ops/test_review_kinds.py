"""pattern_emergent, relation and guard proposals: staged strictly, then each kind's accept effect exactly as the
spec states it (one transaction), reject changing no memory, and the refusals for a second accept, changed
sources and ends that are gone."""

from __future__ import annotations

import json
from typing import Any

import pytest

from memesh.app import gate
from memesh.app.operations.kg import PROPOSE
from memesh.context import CallContext
from memesh.core import guards
from memesh.errors import ErrorCode
from memesh.model import EntityWrite
from memesh.store.sqlite import SqliteStore
from tests.calls import call, run
from tests.conftest import TEST_PROJECT
from tests.ops import review_calls


def _memory(store: SqliteStore, name: str, entity_type: str = "decision", text: str = "a decision") -> int:
    with store.transaction():
        return store.save(
            EntityWrite(
                entity_id=None,
                name=name,
                type=entity_type,
                title=None,
                namespace="personal",
                status="active",
                metadata={"signal_score": 0.5},
                observations=(text,),
                tags=(f"project:{TEST_PROJECT}",),
                created_at="2026-11-24 10:00:00",
            )
        )


def _admitted(kind: str, body: dict[str, Any]) -> Any:
    return gate.admit(f"proposals/{kind}.input", body).unwrap()


RELATION = {
    "project": TEST_PROJECT,
    "from": "no-jwt",
    "to": "use-jwt",
    "relation_type": "supersedes",
    "rationale": "We moved to sessions.",
}
PATTERN = {
    "project": TEST_PROJECT,
    "source_names": ["use-jwt", "no-jwt", "keep-jwt"],
    "name": "auth-churn",
    "observations": ["The auth decision changed three times in a month."],
    "tags": ["topic:auth"],
}
GUARD = {
    "project": TEST_PROJECT,
    "lesson": "rm-build-lesson",
    "pattern": r"rm\s+-rf\s+build",
    "message": "rm -rf build also deletes the compiler cache",
    "should_match": ["rm -rf build", "sudo rm  -rf build/"],
    "should_not_match": ["rm build.log", "ls build"],
}


@pytest.fixture
def graph(fresh_db: SqliteStore) -> SqliteStore:
    for name in ("use-jwt", "no-jwt", "keep-jwt"):
        _memory(fresh_db, name, text=f"{name} says so")
    _memory(fresh_db, "rm-build-lesson", "lesson_learned", "rm -rf build wiped the cache")
    return fresh_db


def _stage(store: SqliteStore, ctx: CallContext, kind: str, body: dict[str, Any]) -> dict[str, Any]:
    answer: dict[str, Any] = run(PROPOSE[kind], store, body, ctx).unwrap()
    return answer


def _snapshot(store: SqliteStore) -> list[Any]:
    rows = store.conn.execute("SELECT id, name, type, status, metadata FROM entities ORDER BY id").fetchall()
    relations = store.conn.execute("SELECT * FROM relations ORDER BY 1, 2, 3").fetchall()
    return [rows, relations]


# --- staging -------------------------------------------------------------------------------------------------


def test_staging_is_idempotent_and_names_the_review_commands(graph: SqliteStore, ctx: CallContext) -> None:
    first = _stage(graph, ctx, "relation", RELATION)
    again = _stage(graph, ctx, "relation", {**RELATION, "rationale": "We  moved to sessions."})
    assert first["created"] is True and again["created"] is False
    assert again["proposal_id"] == first["proposal_id"]
    assert first["kind"] == "relation" and first["status"] == "pending"
    assert first["name"] == "no-jwt —supersedes→ use-jwt"
    assert first["review"] == {
        "required": True,
        "authority": "human",
        "state": "pending",
        "inspect": f"memesh dream show {first['proposal_id']}",
        "accept": f"memesh dream accept {first['proposal_id']}",
        "reject": f"memesh dream reject {first['proposal_id']} --reason <text>",
    }


def test_staging_writes_no_memory(graph: SqliteStore, ctx: CallContext) -> None:
    before = _snapshot(graph)
    for kind, body in (("relation", RELATION), ("pattern_emergent", PATTERN), ("guard", GUARD)):
        _stage(graph, ctx, kind, body)
    assert _snapshot(graph) == before
    assert [row["kind"] for row in review_calls.listed(graph).unwrap()] == [
        "guard",
        "pattern_emergent",
        "relation",
    ]


@pytest.mark.parametrize(
    ("kind", "body", "fragment"),
    [
        ("relation", {**RELATION, "relation_type": "related-to"}, "relation_type"),
        ("relation", {**RELATION, "extra": 1}, "extra"),
        ("relation", {**RELATION, "rationale": "  "}, "rationale"),
        ("pattern_emergent", {**PATTERN, "source_names": ["use-jwt"]}, "source_names"),
        ("pattern_emergent", {**PATTERN, "tags": ["project:other"]}, "tags.0"),
        ("pattern_emergent", {**PATTERN, "observations": []}, "observations"),
        ("guard", {**GUARD, "pattern": "rm"}, "pattern"),
        ("guard", {**GUARD, "tool": "Edit"}, "tool"),
        ("guard", {**GUARD, "should_match": ["rm -rf build"]}, "should_match"),
    ],
)
def test_the_schema_refuses_malformed_input_with_the_field_path(kind: str, body: dict[str, Any], fragment: str) -> None:
    error = gate.admit(f"proposals/{kind}.input", body).failure()
    assert error.code == ErrorCode.BAD_BODY and fragment in error.message


@pytest.mark.parametrize(
    ("changes", "fragment"),
    [
        ({"pattern": "(rm -rf build)?"}, "empty command"),
        ({"pattern": "git (status|push)", "should_match": ["git push", "git push -f"]}, 'routine command "git status"'),
        ({"should_match": ["rm -rf build", "rm -rf dist"]}, "should_match.1: the pattern does not match it"),
        ({"should_not_match": ["rm -rf build", "ls"]}, "should_not_match.0: the pattern matches it"),
        ({"pattern": "rm -rf ((build)"}, "does not compile"),
        ({"pattern": r"(rm\s+-rf\s*)+build"}, "can make matching hang"),
        ({"pattern": "ghp_" + "a" * 36}, "credential"),
    ],
)
def test_a_guard_that_would_misfire_is_refused_and_nothing_staged(
    graph: SqliteStore, ctx: CallContext, changes: dict[str, Any], fragment: str
) -> None:
    error = run(PROPOSE["guard"], graph, {**GUARD, **changes}, ctx).failure()
    assert error.code == ErrorCode.BAD_BODY and fragment in error.message
    assert review_calls.listed(graph, "all").unwrap() == []


def test_staging_refuses_missing_archived_or_wrong_kind_memories(graph: SqliteStore, ctx: CallContext) -> None:
    with graph.transaction():
        graph.set_status("keep-jwt", "archived")
    with graph.transaction():
        graph.save(
            EntityWrite(
                entity_id=None,
                name="imported-lesson",
                type="lesson_learned",
                title=None,
                namespace="personal",
                status="active",
                metadata={"trust": "untrusted"},
                observations=("from a bundle",),
                tags=(),
                created_at="2026-11-24 10:00:00",
            )
        )
    cases = [
        run(PROPOSE["guard"], graph, {**GUARD, "lesson": "imported-lesson"}, ctx),
        run(PROPOSE["relation"], graph, {**RELATION, "to": "nope"}, ctx),
        run(PROPOSE["relation"], graph, {**RELATION, "to": "keep-jwt"}, ctx),
        run(PROPOSE["pattern_emergent"], graph, PATTERN, ctx),
        run(PROPOSE["guard"], graph, {**GUARD, "lesson": "use-jwt"}, ctx),
    ]
    for result in cases:
        assert result.failure().code == ErrorCode.OPERATION_FAILED
    same = run(PROPOSE["relation"], graph, {**RELATION, "to": "no-jwt"}, ctx)
    assert same.failure().code == ErrorCode.BAD_BODY
    assert review_calls.listed(graph, "all").unwrap() == []


def test_staged_text_is_cleaned_and_redacted(graph: SqliteStore, ctx: CallContext) -> None:
    secret = "token ghp_" + "b" * 36
    staged = _stage(graph, ctx, "pattern_emergent", {**PATTERN, "observations": [f"Seen with {secret}\x07"]})
    shown = review_calls.show(graph, staged["proposal_id"]).unwrap()
    [observation] = shown["proposed_digest"]["observations"]
    assert "ghp_" not in observation and "\x07" not in observation and "***REDACTED***" in observation


# --- accept ----------------------------------------------------------------------------------------------------


def test_accepting_a_relation_creates_that_one_relation_and_nothing_else(graph: SqliteStore, ctx: CallContext) -> None:
    staged = _stage(graph, ctx, "relation", RELATION)
    rows_before, relations_before = _snapshot(graph)
    out = review_calls.accept(graph, staged["proposal_id"], ctx=ctx).unwrap()
    assert out == {
        "proposalId": staged["proposal_id"],
        "digestEntityName": "no-jwt —supersedes→ use-jwt",
        "sourcesArchived": 0,
        "sourcesLinked": 0,
        "kind": "relation",
    }
    rows_after, relations_after = _snapshot(graph)
    assert rows_after == rows_before  # no new memory; the superseded one is not archived
    assert len(relations_after) == len(relations_before) + 1
    no_jwt = graph.find("no-jwt")
    assert no_jwt is not None and [(r.to_name, r.type) for r in no_jwt.relations] == [("use-jwt", "supersedes")]
    assert review_calls.show(graph, staged["proposal_id"]).unwrap()["status"] == "applied"


@pytest.mark.parametrize("fate", ["archived", "deleted"])
def test_a_relation_whose_end_is_gone_is_refused_and_stays_pending(
    graph: SqliteStore, ctx: CallContext, fate: str
) -> None:
    staged = _stage(graph, ctx, "relation", RELATION)
    with graph.transaction():
        if fate == "archived":
            graph.set_status("use-jwt", "archived")
        else:
            graph.conn.execute("DELETE FROM entities WHERE name = 'use-jwt'")
    before = _snapshot(graph)
    error = review_calls.accept(graph, staged["proposal_id"], ctx=ctx).failure()
    assert error.code == ErrorCode.OPERATION_FAILED and "use-jwt" in error.message
    assert _snapshot(graph) == before
    assert review_calls.show(graph, staged["proposal_id"]).unwrap()["status"] == "pending"


def test_a_proposal_none_of_whose_memories_remain_is_refused_and_marked_rejected(
    graph: SqliteStore, ctx: CallContext
) -> None:
    relation = _stage(graph, ctx, "relation", RELATION)
    guard = _stage(graph, ctx, "guard", GUARD)
    with graph.transaction():
        for name in ("use-jwt", "no-jwt", "rm-build-lesson"):
            graph.set_status(name, "archived")
    before = _snapshot(graph)
    for staged in (relation, guard):
        error = review_calls.accept(graph, staged["proposal_id"], ctx=ctx).failure()
        assert error.code == ErrorCode.OPERATION_FAILED and "gone or archived" in error.message
        shown = review_calls.show(graph, staged["proposal_id"]).unwrap()
        assert shown["status"] == "rejected" and "gone or archived" in shown["reason"]
    assert _snapshot(graph) == before


def test_accepting_a_pattern_links_its_sources_which_stay_active(graph: SqliteStore, ctx: CallContext) -> None:
    staged = _stage(graph, ctx, "pattern_emergent", PATTERN)
    out = review_calls.accept(graph, staged["proposal_id"], ctx=ctx).unwrap()
    assert out == {
        "proposalId": staged["proposal_id"],
        "digestEntityName": "auth-churn",
        "sourcesArchived": 0,
        "sourcesLinked": 3,
        "kind": "pattern_emergent",
    }
    pattern = graph.find("auth-churn")
    assert pattern is not None and pattern.type == "pattern_emergent" and pattern.status == "active"
    assert f"project:{TEST_PROJECT}" in pattern.tags and "topic:auth" in pattern.tags
    assert pattern.metadata["proposal_id"] == staged["proposal_id"]
    for name in ("use-jwt", "no-jwt", "keep-jwt"):
        source = graph.find(name)
        assert source is not None and source.status == "active"
        assert source.metadata["evidence_for"] == [pattern.id]
        assert ("auth-churn", "evidence_for") in [(r.to_name, r.type) for r in source.relations]


def test_a_pattern_keeps_the_sources_still_there_and_refuses_when_none_are(
    graph: SqliteStore, ctx: CallContext
) -> None:
    partial = _stage(graph, ctx, "pattern_emergent", PATTERN)
    with graph.transaction():
        graph.set_status("keep-jwt", "archived")
    out = review_calls.accept(graph, partial["proposal_id"], ctx=ctx).unwrap()
    assert out["sourcesLinked"] == 2 and out["sourcesMissing"] == 1
    lonely = _stage(graph, ctx, "pattern_emergent", {**PATTERN, "name": "other", "source_names": ["use-jwt", "no-jwt"]})
    with graph.transaction():
        graph.set_status("use-jwt", "archived")
        graph.set_status("no-jwt", "archived")
    error = review_calls.accept(graph, lonely["proposal_id"], ctx=ctx).failure()
    assert error.code == ErrorCode.OPERATION_FAILED
    assert graph.find("other") is None
    assert review_calls.show(graph, lonely["proposal_id"]).unwrap()["status"] == "rejected"


def test_accepting_a_guard_patches_the_lesson_and_creates_no_memory(graph: SqliteStore, ctx: CallContext) -> None:
    staged = _stage(graph, ctx, "guard", GUARD)
    count = len(_snapshot(graph)[0])
    out = review_calls.accept(graph, staged["proposal_id"], ctx=ctx).unwrap()
    assert out["kind"] == "guard" and out["digestEntityName"] == "guard on rm-build-lesson"
    assert out["sourcesArchived"] == 0
    assert len(_snapshot(graph)[0]) == count
    lesson = graph.find("rm-build-lesson")
    assert lesson is not None
    guard = lesson.metadata["guard"]
    assert guard["pattern"] == GUARD["pattern"] and guard["message"] == GUARD["message"]
    assert (
        guard["action"] == "stop-once"
        and guard["project"] == TEST_PROJECT
        and guard["enabled"] is True
        and guard["proposal_id"] == staged["proposal_id"]
    )
    # What the PreToolUse hook reads: the guard fires on the command it was reviewed for.
    [line] = stage_guard_warnings(graph, "cd app && rm -rf build", ctx)
    assert "rm -rf build also deletes the compiler cache" in line and "rm-build-lesson" in line
    assert stage_guard_warnings(graph, "rm build.log", ctx) == []
    # Only in the project it was accepted for.
    assert stage_guard_warnings(graph, "cd app && rm -rf build", ctx, project="elsewhere~" + "c" * 32) == []


def stage_guard_warnings(store: SqliteStore, command: str, ctx: CallContext, project: str = TEST_PROJECT) -> list[str]:
    from memesh.ops import session_memory

    return session_memory.check_guards(store, project, command, session_id=None, ctx=ctx).unwrap().lines


def test_a_guard_on_a_lesson_that_got_another_guard_meanwhile_is_refused(graph: SqliteStore, ctx: CallContext) -> None:
    first = _stage(graph, ctx, "guard", GUARD)
    second = _stage(graph, ctx, "guard", {**GUARD, "message": "Use make clean instead"})
    review_calls.accept(graph, first["proposal_id"], ctx=ctx).unwrap()
    error = review_calls.accept(graph, second["proposal_id"], ctx=ctx).failure()
    assert error.code == ErrorCode.OPERATION_FAILED and "another guard" in error.message
    lesson = graph.find("rm-build-lesson")
    assert lesson is not None and lesson.metadata["guard"]["message"] == GUARD["message"]


@pytest.mark.parametrize(("kind", "body"), [("relation", RELATION), ("pattern_emergent", PATTERN), ("guard", GUARD)])
def test_accepting_twice_is_refused_and_changes_nothing(
    graph: SqliteStore, ctx: CallContext, kind: str, body: dict[str, Any]
) -> None:
    staged = _stage(graph, ctx, kind, body)
    review_calls.accept(graph, staged["proposal_id"], ctx=ctx).unwrap()
    before = _snapshot(graph)
    error = review_calls.accept(graph, staged["proposal_id"], ctx=ctx).failure()
    assert error.code == ErrorCode.OPERATION_FAILED and "already applied" in error.message
    assert _snapshot(graph) == before


@pytest.mark.parametrize(("kind", "body"), [("relation", RELATION), ("pattern_emergent", PATTERN), ("guard", GUARD)])
def test_a_source_changed_since_staging_is_refused(
    graph: SqliteStore, ctx: CallContext, kind: str, body: dict[str, Any]
) -> None:
    staged = _stage(graph, ctx, kind, body)
    target = "rm-build-lesson" if kind == "guard" else "use-jwt"
    entity_type = "lesson_learned" if kind == "guard" else "decision"
    appended = {"name": target, "type": entity_type, "observations": ["a later second thought"]}
    call("remember", graph, appended, ctx).unwrap()
    before = _snapshot(graph)
    error = review_calls.accept(graph, staged["proposal_id"], ctx=ctx).failure()
    assert error.code == ErrorCode.OPERATION_FAILED and "changed since" in error.message
    assert _snapshot(graph) == before
    assert review_calls.show(graph, staged["proposal_id"]).unwrap()["status"] == "rejected"


@pytest.mark.parametrize(("kind", "body"), [("relation", RELATION), ("pattern_emergent", PATTERN), ("guard", GUARD)])
def test_reject_changes_no_memory(graph: SqliteStore, ctx: CallContext, kind: str, body: dict[str, Any]) -> None:
    staged = _stage(graph, ctx, kind, body)
    before = _snapshot(graph)
    out = review_calls.reject(graph, staged["proposal_id"], "not convinced", ctx=ctx).unwrap()
    assert out == {"id": staged["proposal_id"], "status": "rejected"}
    assert _snapshot(graph) == before
    assert review_calls.accept(graph, staged["proposal_id"], ctx=ctx).failure().code == (ErrorCode.OPERATION_FAILED)


def test_an_accepted_pattern_does_not_make_a_pending_review_over_its_sources_look_changed(
    graph: SqliteStore, ctx: CallContext
) -> None:
    pattern = _stage(graph, ctx, "pattern_emergent", PATTERN)
    relation = _stage(graph, ctx, "relation", RELATION)
    guard = _stage(graph, ctx, "guard", GUARD)
    other = _stage(
        graph,
        ctx,
        "pattern_emergent",
        {**PATTERN, "name": "lesson-pattern", "source_names": ["rm-build-lesson", "use-jwt"]},
    )
    review_calls.accept(graph, pattern["proposal_id"], ctx=ctx).unwrap()
    review_calls.accept(graph, guard["proposal_id"], ctx=ctx).unwrap()
    assert review_calls.accept(graph, relation["proposal_id"], ctx=ctx).unwrap()["kind"] == "relation"
    assert review_calls.accept(graph, other["proposal_id"], ctx=ctx).unwrap()["sourcesLinked"] == 2
    use_jwt = graph.find("use-jwt")
    assert use_jwt is not None and len(use_jwt.metadata["evidence_for"]) == 2


def test_a_stored_guard_that_no_longer_validates_is_refused_at_accept(graph: SqliteStore, ctx: CallContext) -> None:
    staged = _stage(graph, ctx, "guard", GUARD)
    with graph.transaction():
        (text,) = graph.conn.execute(
            "SELECT proposed_digest FROM dream_proposals WHERE id = ?", (staged["proposal_id"],)
        ).fetchone()
        digest = json.loads(text)
        digest["guard"]["pattern"] = ".*"
        graph.conn.execute(
            "UPDATE dream_proposals SET proposed_digest = ? WHERE id = ?", (json.dumps(digest), staged["proposal_id"])
        )
    error = review_calls.accept(graph, staged["proposal_id"], ctx=ctx).failure()
    assert error.code == ErrorCode.OPERATION_FAILED and "not usable" in error.message
    lesson = graph.find("rm-build-lesson")
    assert lesson is not None and "guard" not in lesson.metadata


def test_a_disabled_or_other_tool_guard_never_fires() -> None:
    base = {"pattern": "rm -rf build", "message": "careful"}
    assert guards.parse(1, "l", '{"pattern": "rm -rf build"}', "obs") is not None
    assert guards.parse(1, "l", '{"pattern": "rm -rf build", "enabled": false}', "obs") is None
    assert guards.parse(1, "l", '{"pattern": "rm -rf build", "tool": "Edit"}', "obs") is None
    assert guards.parse(1, "l", str(base).replace("'", '"'), "obs") is not None


def test_an_improvement_none_of_whose_sources_remain_is_marked_rejected(graph: SqliteStore, ctx: CallContext) -> None:
    def propose(title: str, sources: list[str]) -> int:
        body = {
            "action": "propose",
            "project": TEST_PROJECT,
            "source_names": sources,
            "title": title,
            "problem": "Auth keeps changing.",
            "proposed_change": "Write the decision down once.",
            "verification_scenario": "A month without a new auth decision.",
            "success_criteria": ["One auth decision"],
        }
        proposal_id: int = call("improvement", graph, body, ctx).unwrap()["proposal_id"]
        return proposal_id

    both = propose("Both gone", ["use-jwt", "no-jwt"])
    one = propose("One gone", ["use-jwt", "keep-jwt"])
    with graph.transaction():
        graph.set_status("use-jwt", "archived")
        graph.set_status("no-jwt", "archived")
    for proposal_id, status in ((both, "rejected"), (one, "pending")):
        error = review_calls.accept(graph, proposal_id, ctx=ctx).failure()
        assert error.code == ErrorCode.OPERATION_FAILED and "use-jwt" in error.message
        assert review_calls.show(graph, proposal_id).unwrap()["status"] == status


def _tagged(store: SqliteStore, name: str, project: str) -> None:
    with store.transaction():
        store.save(
            EntityWrite(
                entity_id=None,
                name=name,
                type="decision",
                title=None,
                namespace="personal",
                status="active",
                metadata={},
                observations=("x",),
                tags=(f"project:{project}",),
                created_at="2026-11-24 10:00:00",
            )
        )


def test_a_guard_given_the_working_folders_label_is_staged_for_its_project_id(
    graph: SqliteStore, ctx: CallContext
) -> None:
    staged = _stage(graph, ctx, "guard", {**GUARD, "project": "test-project"})
    review_calls.accept(graph, staged["proposal_id"], ctx=ctx).unwrap()
    lesson = graph.find("rm-build-lesson")
    assert lesson is not None and lesson.metadata["guard"]["project"] == TEST_PROJECT


def test_a_guard_given_a_label_one_stored_project_has_is_staged_for_that_project(
    graph: SqliteStore, ctx: CallContext
) -> None:
    _tagged(graph, "api-one", "api~" + "a" * 32)
    staged = _stage(graph, ctx, "guard", {**GUARD, "project": "api"})
    review_calls.accept(graph, staged["proposal_id"], ctx=ctx).unwrap()
    lesson = graph.find("rm-build-lesson")
    assert lesson is not None and lesson.metadata["guard"]["project"] == "api~" + "a" * 32


def test_a_guard_given_a_label_several_projects_share_is_refused_and_nothing_staged(
    graph: SqliteStore, ctx: CallContext
) -> None:
    _tagged(graph, "api-one", "api~" + "a" * 32)
    _tagged(graph, "api-two", "api~" + "b" * 32)
    before = graph.conn.execute("SELECT COUNT(*) FROM dream_proposals").fetchone()
    refused = run(PROPOSE["guard"], graph, {**GUARD, "project": "api"}, ctx)
    assert refused.failure().code == ErrorCode.BAD_BODY
    assert graph.conn.execute("SELECT COUNT(*) FROM dream_proposals").fetchone() == before
