"""`memesh dream` as a person types it: list, show, accept and reject staged proposals."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from memesh.context import CallContext
from memesh.store.open import open_store
from tests.backends import Backend
from tests.calls import call
from tests.conftest import TEST_PROJECT
from tests.ops.curation_helpers import digest_result, seed_week
from tests.transports.cli.conftest import Cli


def _stage(db: Path | str, ctx: CallContext, **result: Any) -> int:
    store = open_store(db)
    try:
        seed_week(store)
        prepare = {"action": "prepare", "project": TEST_PROJECT, "kind": "digest"}
        package = call("work_package", store, prepare, ctx).unwrap()["package"]
        submit = {"action": "submit", "package_id": package["id"], "ref": package["ref"], "result": digest_result()}
        proposal_id: int = call("work_package", store, submit, ctx).unwrap()["proposal_id"]
    finally:
        store.close()
    return proposal_id


@pytest.fixture
def staged(memesh_env: Path, backend: Backend, ctx: CallContext) -> int:
    return _stage(backend.target(memesh_env), ctx)


def test_list_shows_the_pending_proposal_and_how_to_review_it(cli: Cli, staged: int) -> None:
    out = cli.ok("dream", "list").out
    assert f"#{staged}" in out and "week-48-digest" in out and "5 sources" in out
    assert "memesh dream accept" in out
    [row] = cli.ok("dream", "list", "--json").json()
    assert row["id"] == staged and row["status"] == "pending"
    assert cli.ok("dream", "list", "--status", "applied", "--json").json() == []


def test_show_prints_the_complete_proposal(cli: Cli, staged: int) -> None:
    out = cli.ok("dream", "show", str(staged)).out
    assert "Five small fixes landed in the parser." in out
    assert "topic:parser" in out
    assert "Source memories: #1, #2, #3, #4, #5" in out
    assert cli.ok("dream", "show", str(staged), "--json").json()["proposed_digest"]["name"] == "week-48-digest"


def test_accept_applies_it_once_and_a_second_accept_exits_1(cli: Cli, staged: int) -> None:
    out = cli.ok("dream", "accept", str(staged)).out
    assert "created week-48-digest" in out and "archived 5" in out
    again = cli("dream", "accept", str(staged), "--json")
    assert again.code == 1
    assert again.json()["errorCode"] == "operation.failed"
    assert cli.ok("recall", "--tag", f"project:{TEST_PROJECT}", "--json").json()["entities"][0]["name"] == (
        "week-48-digest"
    )


def test_reject_keeps_the_reason_and_an_unknown_id_exits_1(cli: Cli, staged: int) -> None:
    assert "no memory changed" in cli.ok("dream", "reject", str(staged), "--reason", "too vague").out
    shown = cli.ok("dream", "show", str(staged), "--json").json()
    assert shown["status"] == "rejected" and shown["reason"] == "too vague"
    missing = cli("dream", "reject", "999", "--json")
    assert missing.code == 1 and missing.json()["errorCode"] == "resource.not-found"
    assert cli("dream", "reject", str(staged), "--reason", "x" * 501).code == 1


def test_a_bad_status_or_id_is_refused(cli: Cli, memesh_env: Path) -> None:
    assert cli("dream", "list", "--status", "bogus").code == 1
    assert cli("dream", "show", "abc").code == 2


def test_the_retired_consolidate_points_at_review_commands_that_exist(cli: Cli, memesh_env: Path) -> None:
    err = cli("consolidate").err
    for command in ("memesh dream list", "memesh dream show", "memesh dream accept", "memesh dream reject"):
        assert command in err
    assert cli("dream", "list").code == 0
