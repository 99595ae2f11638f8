"""import --notes: one memory per frontmatter note file, kept in step with the files across runs."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from memesh.adapters.note_dir import NoteFolder
from memesh.context import CallContext
from memesh.core.note_files import MISSING_TAG, NOTE_TAG
from memesh.ops.note_import import import_notes
from memesh.store.sqlite import SqliteStore

PROJECT = "notes~" + "1" * 32


def _note(path: Path, name: str | None, body: str, description: str | None = None) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    front = ["---"]
    if name is not None:
        front.append(f"name: {name}")
    if description is not None:
        front.append(f"description: {description}")
    front.append("---")
    path.write_text("\n".join(front) + "\n" + body)


def _run(store: SqliteStore, folder: Path, ctx: CallContext) -> dict[str, Any]:
    return import_notes(store, NoteFolder.open(folder), project=PROJECT, ctx=ctx).unwrap()


@pytest.fixture
def notes(tmp_path: Path) -> Path:
    folder = tmp_path / "memory"
    _note(folder / "a.md", "alpha", "First paragraph.\n\n- one\n- two\n", description="The alpha note")
    _note(folder / "sub" / "b.md", "beta", "Beta body.\n")
    return folder


def test_each_note_file_becomes_one_memory_with_relative_provenance(
    fresh_db: SqliteStore, ctx: CallContext, notes: Path
) -> None:
    result = _run(fresh_db, notes, ctx)
    assert result["created"] == 2 and result["discovered"] == 2
    alpha = fresh_db.find("alpha")
    assert alpha is not None
    assert alpha.title == "The alpha note" and alpha.observations == ["First paragraph.", "one", "two"]
    assert NOTE_TAG in alpha.tags and f"project:{PROJECT}" in alpha.tags
    provenance = alpha.metadata["provenance"]
    assert provenance["note_path"] == "a.md" and len(provenance["content_hash"]) == 64
    assert str(notes) not in str(alpha.metadata) and alpha.metadata["trust"] == "untrusted"


def test_an_unchanged_file_is_a_no_op(fresh_db: SqliteStore, ctx: CallContext, notes: Path) -> None:
    _run(fresh_db, notes, ctx)
    result = _run(fresh_db, notes, ctx)
    assert result["unchanged"] == 2 and result["created"] == result["replaced"] == 0


def test_a_changed_file_replaces_its_memory_and_keeps_the_old_version(
    fresh_db: SqliteStore, ctx: CallContext, notes: Path
) -> None:
    _run(fresh_db, notes, ctx)
    _note(notes / "sub" / "b.md", "beta", "Beta body, rewritten.\n")
    assert _run(fresh_db, notes, ctx)["replaced"] == 1
    beta = fresh_db.find("beta")
    assert beta is not None and beta.observations == ["Beta body, rewritten."]
    assert beta.metadata["replaced_history"][0]["observations"] == ["Beta body."]


def test_a_vanished_file_keeps_its_memory_tagged_missing(fresh_db: SqliteStore, ctx: CallContext, notes: Path) -> None:
    _run(fresh_db, notes, ctx)
    (notes / "sub" / "b.md").unlink()
    assert _run(fresh_db, notes, ctx)["markedMissing"] == ["beta"]
    beta = fresh_db.find("beta")
    assert beta is not None and MISSING_TAG in beta.tags and beta.status == "active"


def test_a_renamed_file_keeps_its_memory_without_a_new_version(
    fresh_db: SqliteStore, ctx: CallContext, notes: Path
) -> None:
    _run(fresh_db, notes, ctx)
    (notes / "sub" / "b.md").rename(notes / "b-moved.md")
    result = _run(fresh_db, notes, ctx)
    assert result["repathed"] == 1 and result["markedMissing"] == []
    beta = fresh_db.find("beta")
    assert beta is not None and beta.metadata["provenance"]["note_path"] == "b-moved.md"
    assert "replaced_history" not in beta.metadata


def test_a_second_file_claiming_a_name_is_reported_as_a_duplicate(
    fresh_db: SqliteStore, ctx: CallContext, notes: Path
) -> None:
    _note(notes / "z.md", "alpha", "Impostor.\n")
    result = _run(fresh_db, notes, ctx)
    assert {"path": "z.md", "reason": 'name "alpha" already used by a.md in this directory'} in result["skipped"]
    alpha = fresh_db.find("alpha")
    assert alpha is not None and alpha.observations[0] == "First paragraph."


def test_files_without_frontmatter_or_name_are_skipped_not_guessed(
    fresh_db: SqliteStore, ctx: CallContext, notes: Path
) -> None:
    (notes / "plain.md").write_text("just text\n")
    _note(notes / "nameless.md", None, "body\n")
    reasons = {item["path"]: item["reason"] for item in _run(fresh_db, notes, ctx)["skipped"]}
    assert reasons["plain.md"].startswith("no frontmatter")
    assert reasons["nameless.md"] == "frontmatter has no name"


def test_symlinks_git_and_node_modules_and_large_files_are_not_read(
    fresh_db: SqliteStore, ctx: CallContext, notes: Path
) -> None:
    (notes / "link.md").symlink_to(notes / "a.md")
    _note(notes / ".git" / "x.md", "from-git", "no\n")
    _note(notes / "node_modules" / "y.md", "from-modules", "no\n")
    _note(notes / "big.md", "big", "x" * (256 * 1024 + 10))
    result = _run(fresh_db, notes, ctx)
    reasons = {item["path"]: item["reason"] for item in result["skipped"]}
    assert reasons["link.md"] == "symlink refused" and reasons["big.md"] == "larger than 256 KB"
    assert fresh_db.find("from-git") is None and fresh_db.find("from-modules") is None


def test_a_symlinked_folder_is_reported_and_not_entered(
    fresh_db: SqliteStore, ctx: CallContext, notes: Path, tmp_path: Path
) -> None:
    elsewhere = tmp_path / "elsewhere"
    _note(elsewhere / "outside.md", "from-outside", "no\n")
    (notes / "linked").symlink_to(elsewhere, target_is_directory=True)
    (notes / "sub").mkdir(exist_ok=True)
    (notes / "sub" / "deeper").symlink_to(elsewhere, target_is_directory=True)
    result = _run(fresh_db, notes, ctx)
    reasons = {item["path"]: item["reason"] for item in result["skipped"]}
    refused = "symlinked folder refused (not followed; import its target folder itself)"
    assert (reasons["linked/"], reasons["sub/deeper/"]) == (refused, refused)
    assert fresh_db.find("from-outside") is None
    assert result["refusedNow"] >= 2
    again = _run(fresh_db, notes, ctx)  # reported on every run, counted as new only once
    assert {item["path"] for item in again["skipped"]} >= {"linked/", "sub/deeper/"}
    assert again["refusedNow"] == 0


def test_a_name_owned_by_an_ordinary_memory_is_not_overwritten(
    fresh_db: SqliteStore, ctx: CallContext, notes: Path, tools: Any
) -> None:
    tools.ok("remember", {"name": "alpha", "type": "decision", "observations": ["mine"]})
    result = _run(fresh_db, notes, ctx)
    assert any("did not come from a note file" in item["reason"] for item in result["skipped"])
    alpha = fresh_db.find("alpha")
    assert alpha is not None and alpha.observations == ["mine"]


def test_credentials_in_a_note_file_are_redacted(fresh_db: SqliteStore, ctx: CallContext, tmp_path: Path) -> None:
    _note(tmp_path / "n" / "s.md", "secret", "key AKIAABCDEFGHIJKLMNOP here\n")
    _run(fresh_db, tmp_path / "n", ctx)
    entity = fresh_db.find("secret")
    assert entity is not None and entity.observations == ["key ***REDACTED*** here"]


def test_a_forgotten_memory_is_not_revived_by_editing_its_file(
    fresh_db: SqliteStore, ctx: CallContext, notes: Path, tools: Any
) -> None:
    _run(fresh_db, notes, ctx)
    tools.ok("forget", {"name": "beta"})
    _note(notes / "sub" / "b.md", "beta", "Edited after forget.\n")
    _run(fresh_db, notes, ctx)
    beta = fresh_db.find("beta")
    assert beta is not None and beta.status == "archived" and beta.observations == ["Beta body."]


def test_a_memory_a_manual_remember_appended_to_is_still_replaced_by_its_changed_file(
    fresh_db: SqliteStore, ctx: CallContext, notes: Path, tools: Any
) -> None:
    _run(fresh_db, notes, ctx)
    tools.ok("remember", {"name": "beta", "type": "note", "observations": ["manual line"], "tags": ["mine"]})
    _note(notes / "sub" / "b.md", "beta", "Beta body, v2.\n")
    result = _run(fresh_db, notes, ctx)
    assert result["replaced"] == 1 and result["skipped"] == []
    beta = fresh_db.find("beta")
    assert beta is not None and beta.observations == ["Beta body, v2."] and "mine" in beta.tags
    assert beta.metadata["replaced_history"][-1]["observations"] == ["Beta body.", "manual line"]


def test_a_duplicate_claimant_takes_over_the_name_once_its_owner_file_is_gone(
    fresh_db: SqliteStore, ctx: CallContext, tmp_path: Path
) -> None:
    folder = tmp_path / "dups"
    _note(folder / "d1.md", "dupname", "first\n")
    _note(folder / "d2.md", "dupname", "second\n")
    assert _run(fresh_db, folder, ctx)["skipped"][0]["path"] == "d2.md"
    (folder / "d1.md").unlink()
    result = _run(fresh_db, folder, ctx)
    assert result["skipped"] == [] and result["replaced"] == 1
    entity = fresh_db.find("dupname")
    assert entity is not None and entity.observations == ["second"] and MISSING_TAG not in entity.tags
    assert entity.metadata["provenance"]["note_path"] == "d2.md"


def test_an_ownership_refusal_repeated_on_the_next_run_is_not_counted_as_new(
    fresh_db: SqliteStore, ctx: CallContext, notes: Path
) -> None:
    _note(notes / "z.md", "alpha", "Impostor.\n")
    assert _run(fresh_db, notes, ctx)["refusedNow"] == 1
    again = _run(fresh_db, notes, ctx)
    assert again["refusedNow"] == 0 and [s["path"] for s in again["skipped"]] == ["z.md"]


def test_a_pipe_named_like_a_note_is_passed_over_not_read(fresh_db: SqliteStore, notes: Path, ctx: CallContext) -> None:
    import os

    _note(notes / "real.md", "real", "body")
    os.mkfifo(notes / "pipe.md")  # reading it would wait for a writer that never comes
    result = _run(fresh_db, notes, ctx)
    assert result["created"] == 3  # alpha, beta and real; the pipe is neither read nor reported
    assert fresh_db.find("real") is not None
