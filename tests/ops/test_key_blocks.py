"""A private key written one line per observation is redacted whole on every write path that stores a list."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from memesh.app.memory_tool import handle_memory_command
from memesh.app.operations.kg import PROPOSE_PATTERN
from memesh.app.operations.review import PROPOSAL
from memesh.context import CallContext
from memesh.core.clean import REDACTED
from memesh.model import EntityWrite
from memesh.store.sqlite import SqliteStore
from tests.backends import Backend
from tests.calls import run
from tests.secret_shapes import KEY_LINE_MARKERS, KEY_LINES, assert_nothing_leaked, database_bytes, format_batches

if TYPE_CHECKING:
    from tests.conftest import Caller


def _db(backend: Backend, tmp_path: Path) -> Path | str:
    return backend.target(tmp_path / "memesh" / "knowledge-graph.db")  # where fresh_db opens it


def _no_key_material(store: SqliteStore, backend: Backend, tmp_path: Path, name: str) -> list[str]:
    entity = store.find(name)
    assert entity is not None
    assert entity.observations[0] == "deploy key:" and entity.observations[-1] == "rotate it yearly"
    raw = database_bytes(_db(backend, tmp_path))
    assert [line[:12] for line in KEY_LINE_MARKERS if line.encode() in raw] == []
    return entity.observations


def test_remember_with_a_key_across_its_observations_stores_none_of_it(
    tools: Caller, fresh_db: SqliteStore, backend: Backend, tmp_path: Path
) -> None:
    tools.ok("remember", {"name": "deploy-notes", "type": "note", "observations": KEY_LINES})
    assert _no_key_material(fresh_db, backend, tmp_path, "deploy-notes") == [
        "deploy key:",
        REDACTED,
        "rotate it yearly",
    ]


def test_a_key_appended_to_a_memory_line_by_line_stores_none_of_it(
    tools: Caller, fresh_db: SqliteStore, backend: Backend, tmp_path: Path
) -> None:
    tools.ok("remember", {"name": "deploy-notes", "type": "note", "observations": ["first note"]})
    tools.ok("remember", {"name": "deploy-notes", "type": "note", "observations": KEY_LINES})
    observations = fresh_db.find("deploy-notes")
    assert observations is not None and observations.observations[0] == "first note"
    assert all(line not in observations.observations for line in KEY_LINE_MARKERS)


def test_a_memory_file_holding_a_key_stores_none_of_it(fresh_db: SqliteStore, backend: Backend, tmp_path: Path) -> None:
    path = "/memories/personal/deploy-notes.md"
    created = handle_memory_command(
        {"command": "create", "path": path, "file_text": "\n".join(KEY_LINES)}, db_path=_db(backend, tmp_path)
    )
    assert created["is_error"] is False
    assert _no_key_material(fresh_db, backend, tmp_path, "deploy-notes") == [
        "deploy key:",
        REDACTED,
        "rotate it yearly",
    ]


def test_a_key_pasted_into_a_memory_file_by_str_replace_stores_none_of_it(
    fresh_db: SqliteStore, backend: Backend, tmp_path: Path
) -> None:
    path = "/memories/personal/deploy-notes.md"
    handle_memory_command(
        {"command": "create", "path": path, "file_text": "deploy key:\nTODO\nrotate it yearly"},
        db_path=_db(backend, tmp_path),
    )
    edited = handle_memory_command(
        {"command": "str_replace", "path": path, "old_str": "TODO", "new_str": "\n".join(KEY_LINES[1:-1])},
        db_path=_db(backend, tmp_path),
    )
    assert edited["is_error"] is False
    _no_key_material(fresh_db, backend, tmp_path, "deploy-notes")


def test_no_catalogued_format_reaches_the_database_through_the_memory_tool(
    fresh_db: SqliteStore, backend: Backend, tmp_path: Path
) -> None:
    db = _db(backend, tmp_path)
    for index, texts in enumerate(format_batches()):
        path = f"/memories/personal/formats-{index}.md"
        created = handle_memory_command({"command": "create", "path": path, "file_text": "\n".join(texts)}, db_path=db)
        assert created["is_error"] is False
        edited = handle_memory_command(
            {"command": "insert", "path": path, "insert_line": 0, "insert_text": "\n".join(texts[:10])}, db_path=db
        )
        assert edited["is_error"] is False
    assert_nothing_leaked(db)


def test_an_imported_memory_with_a_key_across_its_observations_stores_none_of_it(
    tools: Caller, fresh_db: SqliteStore, backend: Backend, tmp_path: Path
) -> None:
    bundle = {"entities": [{"name": "deploy-notes", "type": "note", "observations": KEY_LINES}]}
    tools.ok("import", {"data": bundle, "merge_strategy": "overwrite"})
    _no_key_material(fresh_db, backend, tmp_path, "deploy-notes")


def test_the_store_redacts_a_key_across_a_writes_observations_whoever_wrote_it(
    fresh_db: SqliteStore, backend: Backend, tmp_path: Path
) -> None:
    write = EntityWrite(
        entity_id=None,
        name="deploy-notes",
        type="note",
        title=None,
        namespace="personal",
        status="active",
        metadata={},
        observations=tuple(KEY_LINES),
        tags=(),
    )
    with fresh_db.transaction():
        fresh_db.save(write)
    assert _no_key_material(fresh_db, backend, tmp_path, "deploy-notes") == [
        "deploy key:",
        *[REDACTED] * 6,
        "rotate it yearly",
    ]


def test_the_database_the_tests_search_is_the_one_written(
    fresh_db: SqliteStore, backend: Backend, tmp_path: Path
) -> None:
    with fresh_db.transaction():
        fresh_db.save(
            EntityWrite(
                entity_id=None,
                name="written-here",
                type="fact",
                title=None,
                namespace="personal",
                status="active",
                metadata={},
                observations=("x",),
                tags=(),
            )
        )
    assert b"written-here" in database_bytes(_db(backend, tmp_path))


def test_a_staged_pattern_with_a_key_across_its_observations_holds_none_of_it(
    fresh_db: SqliteStore, ctx: CallContext
) -> None:
    for name in ("use-jwt", "no-jwt"):
        with fresh_db.transaction():
            fresh_db.save(
                EntityWrite(None, name, "decision", None, "personal", "active", {}, ("a decision",), ("project:demo",))
            )
    body = {"project": "demo", "source_names": ["use-jwt", "no-jwt"], "name": "auth-churn", "observations": KEY_LINES}
    staged = run(PROPOSE_PATTERN, fresh_db, body, ctx).unwrap()
    shown = run(PROPOSAL, fresh_db, {"id": staged["proposal_id"]}, ctx).unwrap()
    observations = shown["proposed_digest"]["observations"]
    assert observations[0] == "deploy key:" and all(line not in observations for line in KEY_LINE_MARKERS)
