"""What a hook event reaches through its resources: the caller's folder and environment, the stores (None when the
database will not open), the transcript and the note folder beside it."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from memesh.app.resources import Resources
from memesh.store.sqlite import SqliteStore


def test_the_session_folder_is_the_payloads_when_absolute_else_the_hooks(tmp_path: Path) -> None:
    hooks = Resources.for_hook({}, str(tmp_path)).hooks
    assert hooks.session_folder("/somewhere/else") == "/somewhere/else"
    assert hooks.session_folder("relative/dir") == str(tmp_path)
    assert hooks.session_folder(None) == str(tmp_path)


def test_a_hook_without_a_working_folder_cannot_place_its_session() -> None:
    with pytest.raises(FileNotFoundError):
        Resources.for_hook({}, "").hooks.session_folder(None)


def test_settings_come_from_the_callers_environment_not_this_process(memesh_env: Path, tmp_path: Path) -> None:
    os.environ.pop("MEMESH_BRIEFING", None)
    hooks = Resources.for_hook({"MEMESH_BRIEFING": "full", "MEMESH_AUTO_CAPTURE": "0"}, str(tmp_path)).hooks
    assert hooks.briefing_level().value == "full" and hooks.auto_capture() is False
    assert Resources.for_hook({}, str(tmp_path)).hooks.briefing_level().value == "minimal"


@pytest.mark.sqlite_only  # a file that is not a database: PostgreSQL has no such file
def test_a_database_that_will_not_open_reads_as_no_store(memesh_env: Path, tmp_path: Path) -> None:
    memesh_env.mkdir(parents=True)  # a folder where the database file should be
    resources = Resources.for_hook({}, str(tmp_path))
    assert resources.hooks.store() is None and resources.hooks.full_store() is None
    resources.close()


def test_the_stores_an_event_opened_are_closed_with_its_resources(memesh_env: Path, tmp_path: Path) -> None:
    resources = Resources.for_hook({}, str(tmp_path))
    lean, full = resources.hooks.store(), resources.hooks.full_store()
    assert lean is not None and full is not None and lean is not full
    resources.close()
    assert resources.hooks.store() is not lean  # a later use opens it again
    resources.close()


def test_a_lent_database_serves_both_stores_and_stays_open(fresh_db: SqliteStore, tmp_path: Path) -> None:
    resources = Resources.over(fresh_db)
    assert resources.hooks.store() is fresh_db and resources.hooks.full_store() is fresh_db
    resources.close()
    assert fresh_db.conn.execute("SELECT 1").fetchone() == (1,)


def test_a_relative_transcript_path_is_read_from_the_hooks_folder(tmp_path: Path) -> None:
    line = {"type": "assistant", "message": {"role": "assistant", "content": [{"type": "text", "text": "done"}]}}
    (tmp_path / "t.jsonl").write_text(json.dumps(line) + "\n")
    hooks = Resources.for_hook({}, str(tmp_path)).hooks
    session = hooks.transcript("t.jsonl")
    assert session is not None and session.last_reply == "done"
    assert hooks.transcript("t.txt") is None and hooks.transcript("missing.jsonl") is None


def test_the_note_folder_beside_the_transcript_is_absent_unreadable_or_signed(tmp_path: Path) -> None:
    hooks = Resources.for_hook({}, str(tmp_path)).hooks
    assert hooks.note_folder("t.jsonl") is None
    notes = tmp_path / "memory"
    notes.mkdir()
    (notes / "a.md").write_text("x")
    found = hooks.note_folder("t.jsonl")
    assert found is not None and found != "unreadable"
    folder, signature = found
    assert folder.identity == str(notes.resolve()) and signature == str(
        max(notes.stat().st_mtime_ns, (notes / "a.md").stat().st_mtime_ns)
    )
    if os.geteuid() != 0:  # root reads any folder
        notes.chmod(0)
        try:
            assert hooks.note_folder("t.jsonl") == "unreadable"
        finally:
            notes.chmod(0o700)
