"""Every answer of work_package and improvement matches the tool's output schema (MCP clients re-validate it)."""

from __future__ import annotations

from typing import Any

from jsonschema import Draft202012Validator

from memesh.context import CallContext
from memesh.schema import files as schemas
from memesh.store.sqlite import SqliteStore
from tests.calls import call
from tests.conftest import TEST_PROJECT
from tests.ops import review_calls
from tests.ops.curation_helpers import digest_result, seed_week


def _check(tool: str, answer: Any) -> None:
    validator = Draft202012Validator(schemas.load(f"tools/{tool}.output"))
    assert [error.message for error in validator.iter_errors(answer)] == []


def test_every_work_package_answer_matches_its_output_schema(fresh_db: SqliteStore, ctx: CallContext) -> None:
    prepare = {"action": "prepare", "project": TEST_PROJECT, "kind": "digest"}
    _check("work_package", call("work_package", fresh_db, prepare, ctx).unwrap())
    seed_week(fresh_db)
    available = call("work_package", fresh_db, prepare, ctx).unwrap()
    _check("work_package", available)
    package = available["package"]
    identity = {"package_id": package["id"], "ref": package["ref"]}
    _check(
        "work_package",
        call("work_package", fresh_db, {"action": "defer", **identity, "reason": "not_now"}, ctx).unwrap(),
    )
    submit = {"action": "submit", **identity, "result": digest_result()}
    _check("work_package", call("work_package", fresh_db, submit, ctx).unwrap())
    _check("work_package", call("work_package", fresh_db, submit, ctx).unwrap())


def test_every_improvement_answer_matches_its_output_schema(fresh_db: SqliteStore, ctx: CallContext) -> None:
    call("remember", fresh_db, {"name": "l", "type": "lesson_learned", "observations": ["o"]}, ctx).unwrap()
    propose = {
        "action": "propose",
        "project": TEST_PROJECT,
        "source_names": ["l"],
        "title": "t",
        "problem": "p",
        "proposed_change": "c",
        "verification_scenario": "v",
        "success_criteria": ["s"],
    }
    staged = call("improvement", fresh_db, propose, ctx).unwrap()
    _check("improvement", staged)
    status = {"action": "status", "proposal_id": staged["proposal_id"]}
    _check("improvement", call("improvement", fresh_db, status, ctx).unwrap())
    review_calls.reject(fresh_db, staged["proposal_id"], "no", ctx=ctx).unwrap()
    _check("improvement", call("improvement", fresh_db, status, ctx).unwrap())
    _check("improvement", call("improvement", fresh_db, propose, ctx).unwrap())
