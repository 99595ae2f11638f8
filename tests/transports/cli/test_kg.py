"""`memesh kg rename-project` and `memesh kg backfill-relations` as a person types them."""

from __future__ import annotations

import io
import json
import os
import resource
import stat
import subprocess
from pathlib import Path

import pytest

from memesh.context import CallContext
from memesh.store.open import open_store
from memesh.store.sqlite import open_store as open_sqlite
from tests.backends import Backend
from tests.conftest import Caller
from tests.transports.cli.conftest import MEMESH_BIN, Cli, Process


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


def _pairs(edges: list[dict[str, str]], rule: str) -> list[frozenset[str]]:
    return [frozenset((edge["from"], edge["to"])) for edge in edges if edge["rule"] == rule]


def test_tag_cooccurrence_links_memories_that_share_one_project_tag_among_others(cli: Cli, memesh_env: Path) -> None:
    topics = ["topic:db", "topic:cache"]
    cli.ok("remember", "--name", "one", "--type", "note", "--obs", "x", "--tags", "project:p", *topics)
    cli.ok("remember", "--name", "two", "--type", "note", "--obs", "y", "--tags", "project:p", "project:q", *topics)
    cli.ok("remember", "--name", "elsewhere", "--type", "note", "--obs", "z", "--tags", "project:r", *topics)
    out = cli.ok("kg", "backfill-relations", "--json").json()
    assert _pairs(out["edges"], "tag-cooccurrence") == [frozenset({"one", "two"})]


def test_each_symmetric_rule_links_a_pair_of_orphans_once(cli: Cli, memesh_env: Path) -> None:
    common = ["project:p", "topic:db", "topic:cache"]
    cli.ok("remember", "--name", "cache-eviction-policy-lru", "--type", "decision", "--obs", "x", "--tags", *common)
    cli.ok("remember", "--name", "cache-eviction-policy-ttl", "--type", "decision", "--obs", "y", "--tags", *common)
    out = cli.ok("kg", "backfill-relations", "--all-rules", "--max-per-source", "5", "--json").json()
    for rule in ("tag-cooccurrence", "name-tokens"):
        assert _pairs(out["edges"], rule) == [frozenset({"cache-eviction-policy-lru", "cache-eviction-policy-ttl"})]
    assert out["created"] == out["proposed"] == 2


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


def _database_of_size(db: Path, ctx: CallContext, memories: int) -> int:
    db.parent.mkdir(parents=True, exist_ok=True)
    store = open_sqlite(db)  # the backup is of the SQLite file
    try:
        caller = Caller(store, ctx)
        for index in range(memories):
            observations = [f"note {index}.{line} " + "lorem ipsum dolor sit amet " * 12 for line in range(40)]
            caller.ok(
                "remember",
                {"name": f"m{index}", "type": "fact", "observations": observations, "tags": ["project:tim"]},
            )
    finally:
        store.close()  # the last connection checkpoints the write-ahead log into the file
    return db.stat().st_size


def test_the_applied_rename_backup_is_owner_only(cli: Cli, memesh_env: Path) -> None:
    os.umask(0o022)
    cli.ok("remember", "--name", "a", "--type", "fact", "--obs", "x", "--tags", "project:tim")
    applied = cli.ok("kg", "rename-project", "--from", "tim", "--to", "tom", "--apply", "--json").json()
    assert stat.S_IMODE(Path(applied["backup"]).stat().st_mode) == 0o600
    assert [path.name for path in Path(applied["backup"]).parent.iterdir()] == [Path(applied["backup"]).name]


@pytest.mark.sqlite_only  # a SQLite file of a given size, and its copy cut off halfway by a file-size limit
def test_a_backup_that_fails_mid_copy_leaves_no_file_under_its_name_and_renames_nothing(
    memesh_process: Process, ctx: CallContext
) -> None:
    db = Path(memesh_process.env["MEMESH_DB_PATH"])
    size = _database_of_size(db, ctx, memories=12)
    assert size > 256 * 1024

    def small_files() -> None:  # a full disk halfway through the copy: writes past this size fail (EFBIG)
        resource.setrlimit(resource.RLIMIT_FSIZE, (size // 2, size // 2))

    done = subprocess.run(
        [str(MEMESH_BIN), "kg", "rename-project", "--from", "tim", "--to", "tom", "--apply", "--json"],
        cwd=memesh_process.cwd,
        env=memesh_process.env,
        capture_output=True,
        text=True,
        check=False,
        preexec_fn=small_files,
    )
    assert done.returncode == 1, done
    backups = db.parent / "backups"
    assert not backups.exists() or list(backups.iterdir()) == []  # neither the final name nor the temporary one
    assert _tags(db, "m0") == ["project:tim"]


def test_the_project_listing_matches_project_tags_exactly(cli: Cli, memesh_env: Path) -> None:
    cli.ok("remember", "--name", "a", "--type", "fact", "--obs", "x", "--tags", "project:Foo")
    cli.ok("remember", "--name", "b", "--type", "fact", "--obs", "y", "--tags", "project:foo")
    cli.ok("remember", "--name", "c", "--type", "fact", "--obs", "z", "--tags", "project:foo", "Project:bar")
    listed = cli.ok("kg", "rename-project", "--json").json()["projects"]
    assert {row["project"]: row["entities"] for row in listed} == {"Foo": 1, "foo": 2}  # no "bar" from Project:
    preview = cli.ok("kg", "rename-project", "--from", "Foo", "--to", "baz", "--json").json()
    assert preview["entities_renamed"] == 1
