"""The CLI's own operations through the door: each refuses a field it does not know, answers exactly its output
schema, and decides what its command used to decide (remember's form, rename-project's flags, the note folder, the
files a delegation names)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from memesh.app import dispatch
from memesh.app.operations import delegation, hermes, kg, maintenance, messages, writing
from memesh.app.registry import Op
from memesh.app.resources import Resources
from memesh.context import CallContext
from memesh.core.text_memory import TYPE_WITH_NAME
from memesh.errors import ErrorCode
from memesh.schema import files as schemas
from memesh.store.sqlite import SqliteStore
from tests.backends import Backend
from tests.calls import run
from tests.conftest import TEST_PROJECT, Caller

CLI_OPS = [*maintenance.OPS, *kg.OPS, *messages.OPS, *delegation.OPS, *hermes.OPS, *writing.OPS]


def answered(op: Op[Any, Any, Any], store: SqliteStore, arguments: Any, ctx: CallContext) -> Any:
    """`op`'s answer through the door, checked against its output schema."""
    answer = run(op, store, arguments, ctx).unwrap()
    assert op.output_schema is not None
    validator = Draft202012Validator(schemas.load(op.output_schema))
    assert [error.message for error in validator.iter_errors(answer)] == []
    return answer


@pytest.mark.parametrize("op", CLI_OPS, ids=lambda op: op.name)
def test_every_cli_entry_refuses_a_field_it_does_not_know(
    op: Op[Any, Any, Any], fresh_db: SqliteStore, ctx: CallContext
) -> None:
    error = run(op, fresh_db, {"bogus": 1}, ctx).failure()
    assert error.code == ErrorCode.BAD_BODY and "bogus" in error.message


@pytest.mark.parametrize("op", CLI_OPS, ids=lambda op: op.name)
def test_every_cli_entry_has_a_real_output_schema(op: Op[Any, Any, Any]) -> None:
    assert op.output_schema is not None
    schema = schemas.load(op.output_schema)
    assert schema != {"type": "object"} and ("properties" in schema or "anyOf" in schema or schema["type"] == "string")


# --- remember as typed ------------------------------------------------------------------------------------------


def test_text_alone_is_a_note_whose_title_and_name_are_derived(fresh_db: SqliteStore, ctx: CallContext) -> None:
    out = answered(writing.REMEMBER_TYPED, fresh_db, {"text": "Use PKCE\n\nNot implicit."}, ctx)
    assert out["derived"]["title"] == "Use PKCE" and out["type"] == "note"


def test_text_with_observations_keeps_its_own_first(fresh_db: SqliteStore, ctx: CallContext) -> None:
    typed = {"text": "Auth choice\n\nWe use PKCE.", "obs": ["extra"], "name": "auth", "type": "decision"}
    answered(writing.REMEMBER_TYPED, fresh_db, typed, ctx)
    entity = fresh_db.find("auth")
    assert entity is not None and entity.observations == ["We use PKCE.", "extra"] and entity.title == "Auth choice"


def test_a_derived_title_under_a_name_leaves_an_existing_memorys_title(fresh_db: SqliteStore, ctx: CallContext) -> None:
    answered(writing.REMEMBER_TYPED, fresh_db, {"name": "auth", "type": "decision", "title": "Kept", "obs": ["a"]}, ctx)
    answered(
        writing.REMEMBER_TYPED,
        fresh_db,
        {"text": "Other title\n\nmore", "name": "auth", "obs": ["b"], "type": "decision"},
        ctx,
    )
    entity = fresh_db.find("auth")
    assert entity is not None and entity.title == "Kept"


def test_observations_under_a_name_without_a_type_are_refused_in_the_flags_words(
    fresh_db: SqliteStore, ctx: CallContext
) -> None:
    error = run(writing.REMEMBER_TYPED, fresh_db, {"name": "auth", "obs": ["a"]}, ctx).failure()
    assert (error.code, error.message) == (ErrorCode.BAD_BODY, TYPE_WITH_NAME)
    assert fresh_db.count() == 0


def test_a_note_over_the_tools_limit_is_refused_by_its_field(fresh_db: SqliteStore, ctx: CallContext) -> None:
    error = run(writing.REMEMBER_TYPED, fresh_db, {"text": "x" * 20_001}, ctx).failure()
    assert error.code == ErrorCode.BAD_BODY and error.message.startswith("note: ")


@pytest.mark.parametrize("typed", [{"replace": True, "text": "x"}, {"tags": ["t"]}])
def test_what_names_no_memory_is_refused(fresh_db: SqliteStore, ctx: CallContext, typed: dict[str, Any]) -> None:
    assert run(writing.REMEMBER_TYPED, fresh_db, typed, ctx).failure().code == ErrorCode.BAD_BODY


# --- upkeep and backups ---------------------------------------------------------------------------------------


def test_pin_and_reindex_answer_their_schemas(fresh_db: SqliteStore, tools: Caller, ctx: CallContext) -> None:
    tools.ok("remember", {"name": "a", "type": "note", "observations": ["x"]})
    assert answered(maintenance.PIN, fresh_db, {"name": "a", "pinned": True}, ctx)["found"] is True
    assert answered(maintenance.REINDEX, fresh_db, {}, ctx) == {"entities": 1}


def test_a_restored_file_keeps_descriptive_metadata_and_can_be_trusted(
    fresh_db: SqliteStore, tools: Caller, ctx: CallContext
) -> None:
    entry = {"name": "mine", "type": "fact", "observations": ["x"], "metadata": {"display": "kept"}}
    out = answered(
        maintenance.IMPORT_FILE, fresh_db, {"data": {"entities": [entry]}, "merge_strategy": "skip", "trust": True}, ctx
    )
    assert out["imported"] == 1
    entity = fresh_db.find("mine")
    assert entity is not None and entity.metadata.get("trust", "trusted") == "trusted"


def test_the_import_tool_itself_never_trusts(fresh_db: SqliteStore, tools: Caller) -> None:
    entry = {"name": "theirs", "type": "fact", "observations": ["x"]}
    error = tools.fails("import", {"data": {"entities": [entry]}, "merge_strategy": "skip", "trust": True})
    assert error.code == ErrorCode.BAD_BODY


def test_a_note_folder_is_read_through_the_resources(fresh_db: SqliteStore, ctx: CallContext, tmp_path: Path) -> None:
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "a.md").write_text("---\nname: auth-note\ndescription: Auth\n---\nWe use PKCE.\n", encoding="utf-8")
    out = answered(maintenance.IMPORT_NOTES, fresh_db, {"dir": str(folder)}, ctx)
    assert (out["discovered"], out["created"]) == (1, 1)
    entity = fresh_db.find("auth-note")
    assert entity is not None and f"project:{TEST_PROJECT}" in entity.tags


@pytest.mark.parametrize(
    ("arguments", "code"),
    [({"project": "  "}, ErrorCode.OPERATION_FAILED), ({"dir": "/no/such/folder"}, ErrorCode.OPERATION_FAILED)],
)
def test_a_blank_project_or_an_unreadable_folder_imports_nothing(
    fresh_db: SqliteStore, ctx: CallContext, tmp_path: Path, arguments: dict[str, Any], code: ErrorCode
) -> None:
    assert run(maintenance.IMPORT_NOTES, fresh_db, {"dir": str(tmp_path), **arguments}, ctx).failure().code == code
    assert fresh_db.count() == 0


# --- kg --------------------------------------------------------------------------------------------------------


def test_backfill_answers_its_schema(fresh_db: SqliteStore, tools: Caller, ctx: CallContext) -> None:
    for name in ("one", "two"):
        tools.ok("remember", {"name": name, "type": "decision", "observations": [name], "tags": ["topic:a", "topic:b"]})
    out = answered(kg.BACKFILL_RELATIONS, fresh_db, {"dry_run": True}, ctx)
    assert out["proposed"] >= 1 and out["created"] == 0
    assert run(kg.BACKFILL_RELATIONS, fresh_db, {"min_jaccard": 0}, ctx).failure().code == ErrorCode.BAD_BODY


def test_rename_project_lists_previews_and_applies_on_the_database_file(
    tools: Caller, fresh_db: SqliteStore, ctx: CallContext, tmp_path: Path, backend: Backend
) -> None:
    tools.ok("remember", {"name": "a", "type": "fact", "observations": ["x"], "tags": ["project:old"]})
    resources = Resources(db_path=backend.target(tmp_path / "memesh" / "knowledge-graph.db"))
    listed: Any = dispatch.run(kg.RENAME_PROJECT, resources, {}, ctx).unwrap()
    assert {"project": "old", "entities": 1, "messages": 0} in listed["projects"]
    preview: Any = dispatch.run(kg.RENAME_PROJECT, resources, {"from": "old", "to": "new"}, ctx).unwrap()
    assert (preview["dry_run"], preview["entities_renamed"]) == (True, 1)
    untouched = fresh_db.find("a")
    assert untouched is not None and "project:old" in untouched.tags
    applied: Any = dispatch.run(kg.RENAME_PROJECT, resources, {"from": "old", "to": "new", "apply": True}, ctx).unwrap()
    # PostgreSQL's backup is a SQLite copy of its rows, in the local folder; `memesh db copy` puts it back.
    assert Path(applied["backup"]).is_file() and applied["restore"].startswith(
        "memesh db copy --from " if backend.postgres else "sqlite3 "
    )
    moved = fresh_db.find("a")
    assert moved is not None and "project:new" in moved.tags
    validator = Draft202012Validator(schemas.load("cli/rename_project.output"))
    assert [e.message for answer in (listed, preview, applied) for e in validator.iter_errors(answer)] == []


@pytest.mark.parametrize(
    "arguments", [{"from": "a"}, {"apply": True}, {"from": "a", "to": "project:a"}, {"from": "a", "to": "/x"}]
)
def test_rename_flags_that_do_not_go_together_are_refused_before_any_database_opens(
    ctx: CallContext, tmp_path: Path, arguments: dict[str, Any]
) -> None:
    db = tmp_path / "memesh" / "knowledge-graph.db"
    assert dispatch.run(kg.RENAME_PROJECT, Resources(db_path=db), arguments, ctx).failure().code == ErrorCode.BAD_BODY
    assert not db.parent.exists()


def test_listing_without_a_database_creates_none(ctx: CallContext, tmp_path: Path) -> None:
    db = tmp_path / "memesh" / "knowledge-graph.db"
    assert dispatch.run(kg.RENAME_PROJECT, Resources(db_path=db), {}, ctx).unwrap() == {
        "database": False,
        "projects": [],
    }
    assert dispatch.run(kg.RENAME_PROJECT, Resources(db_path=db), {"from": "a", "to": "b"}, ctx).failure().code == (
        ErrorCode.OPERATION_FAILED
    )
    assert not db.exists()


def test_a_relation_proposal_is_staged_once(fresh_db: SqliteStore, tools: Caller, ctx: CallContext) -> None:
    for name in ("use-jwt", "no-jwt"):
        tools.ok("remember", {"name": name, "type": "decision", "observations": [name]})
    body = {"project": TEST_PROJECT, "from": "no-jwt", "to": "use-jwt", "relation_type": "supersedes", "rationale": "r"}
    first = answered(kg.PROPOSE_RELATION, fresh_db, body, ctx)
    assert first["created"] is True and answered(kg.PROPOSE_RELATION, fresh_db, body, ctx)["created"] is False


# --- messages, delegation, hermes, the memory tool -------------------------------------------------------------


def test_message_storage_answers_its_schemas_and_refuses_a_bad_cutoff_or_batch(
    fresh_db: SqliteStore, ctx: CallContext
) -> None:
    assert answered(messages.MESSAGE_STORAGE_REPORT, fresh_db, {"cutoff": "2999-01-01"}, ctx)["pruned_payloads"] == 0
    assert answered(messages.MESSAGE_STORAGE_PRUNE, fresh_db, {"cutoff": "2999-01-01"}, ctx)["dry_run"] is True
    applied = answered(messages.MESSAGE_STORAGE_PRUNE, fresh_db, {"cutoff": "2999-01-01", "apply": True}, ctx)
    assert (applied["pruned"], applied["batches"]) == (0, 0)
    for arguments in ({"cutoff": "yesterday"}, {"cutoff": "2999-01-01", "batch_size": 1001}):
        assert run(messages.MESSAGE_STORAGE_PRUNE, fresh_db, arguments, ctx).failure().code == ErrorCode.BAD_BODY


def test_a_delegation_record_reads_the_files_it_is_named(
    fresh_db: SqliteStore, ctx: CallContext, tmp_path: Path
) -> None:
    (tmp_path / "envelope.json").write_text(json.dumps({"ok": True, "model": "m"}), encoding="utf-8")
    (tmp_path / "prompt.txt").write_text("write a parser", encoding="utf-8")
    arguments = {
        "envelope": str(tmp_path / "envelope.json"),
        "prompt_file": str(tmp_path / "prompt.txt"),
        "source": "w",
    }
    recorded = answered(delegation.DELEGATION_RECORD, fresh_db, arguments, ctx)
    assert (recorded["stored"], recorded["model"], recorded["mode"]) == (True, "m", "direct")
    verified = answered(delegation.DELEGATION_VERIFY, fresh_db, {"name": recorded["name"], "verdict": "accepted"}, ctx)
    assert (verified["previousVerdict"], verified["trust"]) == ("unreviewed", "verified")


def test_a_delegation_file_that_cannot_be_read_is_named_and_nothing_is_stored(
    fresh_db: SqliteStore, ctx: CallContext, tmp_path: Path
) -> None:
    arguments = {"envelope": str(tmp_path / "missing.json"), "prompt_file": str(tmp_path / "p"), "source": "w"}
    error = run(delegation.DELEGATION_RECORD, fresh_db, arguments, ctx).failure()
    assert error.code == ErrorCode.OPERATION_FAILED and "missing.json" in error.message
    assert fresh_db.count() == 0


def test_hermes_captures_and_recalls_through_the_door(fresh_db: SqliteStore, ctx: CallContext) -> None:
    turn = {"session": "s", "input": {"user": "which db?", "assistant": "We decided to use SQLite."}}
    assert answered(hermes.HERMES_CAPTURE_TURN, fresh_db, turn, ctx)["kind"] == "decision"
    skipped = answered(hermes.HERMES_CAPTURE_SESSION, fresh_db, {"session": "s", "input": {"messages": []}}, ctx)
    assert skipped["outcome"] == "skipped"
    block = answered(hermes.HERMES_RECALL, fresh_db, {"session": "s", "input": {"query": "SQLite", "limit": 500}}, ctx)
    assert block["count"] == 1 and block["context"].startswith("[MeMesh recall]\n- (conversation) hermes-turn-s-")


def test_a_bad_hermes_session_id_or_stdin_key_is_refused(fresh_db: SqliteStore, ctx: CallContext) -> None:
    bad_id = {"session": "a b", "input": {"user": "", "assistant": "We decided."}}
    assert run(hermes.HERMES_CAPTURE_TURN, fresh_db, bad_id, ctx).failure().code == ErrorCode.BAD_PARAM
    extra = {"session": "s", "input": {"user": "", "assistant": "We decided.", "pad": "x"}}
    assert run(hermes.HERMES_CAPTURE_TURN, fresh_db, extra, ctx).failure().code == ErrorCode.BAD_BODY
    assert fresh_db.count() == 0


def test_the_memory_tool_command_is_carried_as_given(fresh_db: SqliteStore, ctx: CallContext) -> None:
    create = {"command": "create", "path": "/memories/team/a.md", "file_text": "one"}
    assert "created" in answered(writing.MEMORY_TOOL_COMMAND, fresh_db, {"input": create}, ctx).lower()
    error = run(writing.MEMORY_TOOL_COMMAND, fresh_db, {"input": "view /memories"}, ctx).failure()
    assert error.code == ErrorCode.BAD_BODY and error.message.startswith("Error:")
