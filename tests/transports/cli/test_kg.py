"""`memesh kg rename-project` and `memesh kg backfill-relations` as a person types them."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from memesh.store.open import open_store
from tests.backends import Backend
from tests.transports.cli.conftest import Cli, Process


def _tags(db: Path | str, name: str) -> list[str]:
    store = open_store(db)
    try:
        entity = store.find(name)
        assert entity is not None
        return entity.tags
    finally:
        store.close()


@pytest.mark.sqlite_only  # "no database yet": a PostgreSQL database always exists
def test_listing_without_a_database_says_so_and_creates_none(cli: Cli, memesh_env: Path) -> None:
    assert cli.ok("kg", "rename-project").out.strip() == "No MeMesh database yet."
    assert cli("kg", "rename-project", "--from", "a", "--to", "b").code == 1
    assert not memesh_env.exists()


def test_refused_flag_combinations_exit_1_before_opening_the_database(cli: Cli, memesh_env: Path) -> None:
    for argv in (
        ["--from", "a"],
        ["--to", "b"],
        ["--apply"],
        ["--from", "a", "--to", "a"],
        ["--from", "a", "--to", "/x"],
    ):
        assert cli("kg", "rename-project", *argv).code == 1, argv
    assert not memesh_env.exists()


def test_the_dry_run_counts_what_apply_does_and_writes_nothing(cli: Cli, memesh_env: Path, backend: Backend) -> None:
    cli.ok("remember", "--name", "a", "--type", "fact", "--obs", "x", "--tags", "project:tim")
    cli.ok("remember", "--name", "b", "--type", "fact", "--obs", "y", "--tags", "project:tim", "project:TIM")
    listed = cli.ok("kg", "rename-project", "--json").json()["projects"]
    assert {row["project"]: row["entities"] for row in listed} == {"tim": 2, "TIM": 1}
    preview = cli.ok("kg", "rename-project", "--from", "tim", "--to", "TIM", "--json").json()
    assert (preview["entities_renamed"], preview["entities_merged"], preview["dry_run"]) == (1, 1, True)
    assert "project:tim" in _tags(backend.target(memesh_env), "a")
    applied = cli.ok("kg", "rename-project", "--from", "tim", "--to", "TIM", "--apply", "--json").json()
    assert {k: applied[k] for k in ("entities_renamed", "entities_merged")} == {
        "entities_renamed": 1,
        "entities_merged": 1,
    }
    assert Path(applied["backup"]).is_file()
    assert Path(applied["backup"]).parent == memesh_env.parent / "backups"
    assert _tags(backend.target(memesh_env), "a") == ["project:TIM"]
    assert _tags(backend.target(memesh_env), "b") == ["project:TIM"]


def test_backfill_previews_then_links_orphans_once(cli: Cli, memesh_env: Path) -> None:
    tags = ["project:p", "topic:db", "topic:cache"]
    cli.ok("remember", "--name", "one", "--type", "decision", "--obs", "x", "--tags", *tags)
    cli.ok("remember", "--name", "two", "--type", "decision", "--obs", "y", "--tags", *tags)
    cli.ok("remember", "--name", "v1", "--type", "release", "--obs", "z", "--tags", "project:p")
    preview = cli.ok("kg", "backfill-relations", "--dry-run", "--json").json()
    assert preview["proposed"] >= 2 and preview["created"] == 0
    assert {"tag-cooccurrence", "project-clustering"} <= set(preview["by_rule"])
    created = cli.ok("kg", "backfill-relations", "--json").json()
    assert created["created"] == created["proposed"]
    again = cli.ok("kg", "backfill-relations", "--json").json()
    assert again["created"] == 0


def test_evidence_links_join_a_commit_to_the_work_of_its_session(cli: Cli, memesh_env: Path) -> None:
    cli.ok("remember", "--name", "the-fix", "--type", "bug_fix", "--obs", "x", "--tags", "project:p", "session:s1")
    cli.ok("remember", "--name", "commit-abc", "--type", "commit", "--obs", "y", "--tags", "project:p", "session:s1")
    out = cli.ok("kg", "backfill-relations", "--json").json()
    assert {"from": "commit-abc", "to": "the-fix", "type": "evidences", "rule": "evidence-links"} in out["edges"]


def test_rename_project_carries_messages_and_its_dry_run_moves_none(
    cli: Cli, memesh_env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    old, new = "old~" + "3" * 32, "new~" + "4" * 32
    monkeypatch.setattr("sys.stdin", io.StringIO("review ready"))
    send = ("message", "send", "--project", old, "--sender", "author", "--recipient", "reviewer")
    sent = cli.ok(*send, "--idempotency-key", "k1", "--payload-stdin", "--json").json()
    fetch = ("message", "fetch", "--recipient", "reviewer", "--message-id", sent["message_id"])
    listed = cli.ok("kg", "rename-project", "--json").json()["projects"]
    assert listed == [{"project": old, "entities": 0, "messages": 1}]  # a project only messages carry is listed

    preview = cli.ok("kg", "rename-project", "--from", old, "--to", new, "--json").json()
    assert (preview["dry_run"], preview["messages_moved"], preview["messages_left_in_place"]) == (True, 1, 0)
    assert cli.ok(*fetch, "--project", old).out == "review ready\n"  # the dry run changed nothing
    assert cli(*fetch, "--project", new).code != 0
    assert cli.ok("kg", "rename-project", "--json").json()["projects"] == listed

    text = cli.ok("kg", "rename-project", "--from", old, "--to", new).out
    assert "messages: 1 moved, 0 left in place" in text
    applied = cli.ok("kg", "rename-project", "--from", old, "--to", new, "--apply", "--json").json()
    assert (applied["dry_run"], applied["messages_moved"], applied["messages_left_in_place"]) == (False, 1, 0)
    assert cli.ok(*fetch, "--project", new).out == "review ready\n"
    assert cli(*fetch, "--project", old).code != 0
    watched = cli.ok("message", "watch", "--project", new, "--recipient", "reviewer", "--wait-ms", "0").out
    assert json.loads(watched.splitlines()[1])["events"][0]["message_id"] == sent["message_id"]
    assert cli.ok("kg", "rename-project", "--json").json()["projects"] == [
        {"project": new, "entities": 0, "messages": 1}
    ]


@pytest.mark.parametrize("stdin", ["not json", "[1, 2]", "[" * 100_000 + "]" * 100_000])
def test_kg_propose_refuses_what_is_not_one_json_object_in_one_line(memesh_process: Process, stdin: str) -> None:
    # The last is valid JSON nested past what the parser can follow: it was a traceback ("failed unexpectedly").
    done = memesh_process("kg", "propose", "guard", stdin=stdin)
    assert done.code == 1 and done.out == ""
    assert done.err.startswith("Error: ") and "unexpectedly" not in done.err and len(done.err.splitlines()) == 1
