"""The memory tool against a real database: every command, and nothing written on a refusal."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from returns.result import Failure, Success

from memesh.context import CallContext
from memesh.errors import ErrorCode
from memesh.ops.memory_tool import memory_command
from memesh.store.sqlite import SqliteStore
from tests.calls import call

APOLLO = "/memories/team/Project Apollo.md"


def run(store: SqliteStore, ctx: CallContext, **command: Any) -> str:
    match memory_command(store, command, ctx=ctx):
        case Success(text):
            return str(text)
        case Failure(error):
            raise AssertionError(error.message)
    raise AssertionError


def refused(store: SqliteStore, ctx: CallContext, **command: Any) -> tuple[ErrorCode, str]:
    before = snapshot(store)
    match memory_command(store, command, ctx=ctx):
        case Failure(error):
            assert snapshot(store) == before, "a refusal wrote something"
            return error.code, error.message
    raise AssertionError(f"{command} was performed")


def snapshot(store: SqliteStore) -> list[tuple[Any, ...]]:
    rows: list[tuple[Any, ...]] = []
    for table in ("entities", "observations", "tags", "relations"):
        rows += [(table, *row) for row in store.conn.execute(f"SELECT * FROM {table} ORDER BY 1")]
    return rows


def test_create_then_view_shows_each_line_as_one_observation(fresh_db: SqliteStore, ctx: CallContext) -> None:
    run(fresh_db, ctx, command="create", path=APOLLO, file_text="launch in May\nuse postgres\n")
    entity = fresh_db.find("Project Apollo")
    assert entity is not None
    assert (entity.namespace, entity.type, entity.observations) == ("team", "note", ["launch in May", "use postgres"])
    assert entity.metadata["provenance"]["source_host"] == "test-host"
    shown = run(fresh_db, ctx, command="view", path=APOLLO)
    assert shown.endswith("     1\tlaunch in May\n     2\tuse postgres")


def test_create_over_an_existing_memory_overwrites_observations_and_keeps_tags(
    fresh_db: SqliteStore, ctx: CallContext
) -> None:
    call(
        "remember",
        fresh_db,
        {
            "name": "Project Apollo",
            "type": "decision",
            "observations": ["old"],
            "tags": ["topic:launch"],
            "namespace": "team",
        },
        ctx,
    ).unwrap()
    run(fresh_db, ctx, command="create", path=APOLLO, file_text="new one\nnew two")
    entity = fresh_db.find("Project Apollo")
    assert entity is not None
    assert (entity.observations, entity.tags, entity.type) == (["new one", "new two"], ["topic:launch"], "decision")
    assert entity.metadata["replaced_history"][0]["observations"] == ["old"]


def test_view_of_the_root_counts_and_a_namespace_lists_type_and_tags_without_counting_access(
    fresh_db: SqliteStore, ctx: CallContext
) -> None:
    call(
        "remember",
        fresh_db,
        {"name": "a/b", "type": "fact", "observations": ["x"], "tags": ["t1", "t2"], "namespace": "global"},
        ctx,
    ).unwrap()
    root = run(fresh_db, ctx, command="view", path="/memories")
    assert "/memories/global/\t1 memory" in root and "/memories/team/\t0 memories" in root
    listing = run(fresh_db, ctx, command="view", path="/memories/global")
    assert "1\t/memories/global/a%2Fb.md\t(fact)\ttags: t1, t2" in listing
    entity = fresh_db.find("a/b")
    assert entity is not None and entity.access_count == 0


def test_str_replace_edits_the_one_occurrence(fresh_db: SqliteStore, ctx: CallContext) -> None:
    run(fresh_db, ctx, command="create", path=APOLLO, file_text="use postgres\nowner ann")
    run(fresh_db, ctx, command="str_replace", path=APOLLO, old_str="postgres", new_str="sqlite")
    entity = fresh_db.find("Project Apollo")
    assert entity is not None and entity.observations == ["use sqlite", "owner ann"]


def test_str_replace_without_new_str_deletes_the_text(fresh_db: SqliteStore, ctx: CallContext) -> None:
    run(fresh_db, ctx, command="create", path=APOLLO, file_text="a\nb")
    run(fresh_db, ctx, command="str_replace", path=APOLLO, old_str="\nb")
    entity = fresh_db.find("Project Apollo")
    assert entity is not None and entity.observations == ["a"]


def test_an_ambiguous_str_replace_is_refused_with_every_line_and_writes_nothing(
    fresh_db: SqliteStore, ctx: CallContext
) -> None:
    run(fresh_db, ctx, command="create", path=APOLLO, file_text="x one\ny\nx two")
    code, message = refused(fresh_db, ctx, command="str_replace", path=APOLLO, old_str="x", new_str="z")
    assert code == ErrorCode.OPERATION_FAILED and "lines: 1, 3" in message


def test_insert_goes_after_the_memory_owning_the_line(fresh_db: SqliteStore, ctx: CallContext) -> None:
    call(
        "remember",
        fresh_db,
        {"name": "m", "type": "note", "observations": ["one", "two a\ntwo b\ntwo c", "three"], "namespace": "personal"},
        ctx,
    ).unwrap()
    run(fresh_db, ctx, command="insert", path="/memories/personal/m.md", insert_line=3, insert_text="after two\n")
    entity = fresh_db.find("m")
    assert entity is not None and entity.observations == ["one", "two a\ntwo b\ntwo c", "after two", "three"]


def test_delete_archives_and_the_file_is_gone_for_the_model(fresh_db: SqliteStore, ctx: CallContext) -> None:
    run(fresh_db, ctx, command="create", path=APOLLO, file_text="a")
    assert run(fresh_db, ctx, command="delete", path=APOLLO) == f"Successfully deleted {APOLLO}"
    entity = fresh_db.find("Project Apollo")
    assert entity is not None and entity.status == "archived" and entity.observations == ["a"]
    assert refused(fresh_db, ctx, command="view", path=APOLLO)[0] == ErrorCode.NOT_FOUND
    assert "0 memories" in run(fresh_db, ctx, command="view", path="/memories").split("team/")[1]


def test_create_at_an_archived_memorys_own_path_brings_it_back(fresh_db: SqliteStore, ctx: CallContext) -> None:
    run(fresh_db, ctx, command="create", path=APOLLO, file_text="a")
    run(fresh_db, ctx, command="delete", path=APOLLO)
    run(fresh_db, ctx, command="create", path=APOLLO, file_text="b")
    entity = fresh_db.find("Project Apollo")
    assert entity is not None and (entity.status, entity.observations) == ("active", ["b"])


def test_rename_moves_the_memory_and_reindexes_it_under_the_new_name(fresh_db: SqliteStore, ctx: CallContext) -> None:
    run(fresh_db, ctx, command="create", path="/memories/team/kangaroo-notes.md", file_text="hops")
    run(
        fresh_db,
        ctx,
        command="rename",
        old_path="/memories/team/kangaroo-notes.md",
        new_path="/memories/personal/wallaby-notes.md",
    )
    entity = fresh_db.find("wallaby-notes")
    assert entity is not None and entity.namespace == "personal"
    assert entity.metadata["previous_namespace"] == "team"
    assert fresh_db.find("kangaroo-notes") is None
    found = call("recall", fresh_db, {"query": "kangaroo"}, ctx).unwrap()
    assert found["entities"] == []
    assert [e["name"] for e in call("recall", fresh_db, {"query": "wallaby"}, ctx).unwrap()["entities"]] == [
        "wallaby-notes"
    ]


def test_rename_onto_a_name_taken_in_another_namespace_is_refused(fresh_db: SqliteStore, ctx: CallContext) -> None:
    run(fresh_db, ctx, command="create", path="/memories/team/a.md", file_text="a")
    run(fresh_db, ctx, command="create", path="/memories/global/b.md", file_text="b")
    code, message = refused(
        fresh_db, ctx, command="rename", old_path="/memories/team/a.md", new_path="/memories/personal/b.md"
    )
    assert code == ErrorCode.OPERATION_FAILED and "global" in message


def test_create_onto_a_name_taken_in_another_namespace_is_refused(fresh_db: SqliteStore, ctx: CallContext) -> None:
    run(fresh_db, ctx, command="create", path="/memories/team/a.md", file_text="a")
    code, message = refused(fresh_db, ctx, command="create", path="/memories/personal/a.md", file_text="b")
    assert code == ErrorCode.OPERATION_FAILED and "unique across namespaces" in message


@pytest.mark.parametrize(
    "command",
    [
        {"command": "create", "path": "/memories", "file_text": "x"},
        {"command": "create", "path": "/memories/team", "file_text": "x"},
        {"command": "str_replace", "path": "/memories/team", "old_str": "x"},
        {"command": "insert", "path": "/memories", "insert_line": 0, "insert_text": "x"},
        {"command": "delete", "path": "/memories"},
        {"command": "delete", "path": "/memories/team"},
        {"command": "rename", "old_path": "/memories/team", "new_path": "/memories/global"},
        {"command": "rename", "old_path": "/memories", "new_path": "/memories/team/x.md"},
        {"command": "rename", "old_path": "/memories/team/a.md", "new_path": "/memories/team"},
        {"command": "create", "path": "/memories-of-you/a.md", "file_text": "x"},
        {"command": "create", "path": "/memories/team/../global/a.md", "file_text": "x"},
        {"command": "create", "path": "/memories/team/%2e%2e.md", "file_text": "x"},
        {"command": "create", "path": "/memories/team/a/b.md", "file_text": "x"},
        {"command": "create", "path": "/memories/work/a.md", "file_text": "x"},
        {"command": "create", "path": "/memories/team/a.md", "file_text": "x\n" * 101},
        {"command": "create", "path": "/memories/team/a.md", "file_text": 3},
        {"command": "create", "path": "/memories/team/a.md"},
        {"command": "create", "path": "/memories/team/a.md", "file_text": "x", "mode": "w"},
        {"command": "str_replace", "path": "/memories/team/a.md", "old_str": ""},
        {"command": "insert", "path": "/memories/team/a.md", "insert_line": True, "insert_text": "x"},
        {"command": "insert", "path": "/memories/team/a.md", "insert_line": 9, "insert_text": "x"},
        {"command": "view", "path": "/memories/team/a.md", "view_range": [1]},
        {"command": "format"},
        {"path": "/memories"},
        "view /memories",
    ],
)
def test_every_refusal_writes_nothing(fresh_db: SqliteStore, ctx: CallContext, command: Any) -> None:
    run(fresh_db, ctx, command="create", path="/memories/team/a.md", file_text="one\ntwo")
    code, message = refused(fresh_db, ctx, **command) if isinstance(command, dict) else (None, "")
    if not isinstance(command, dict):
        match memory_command(fresh_db, command, ctx=ctx):
            case Failure(error):
                code, message = error.code, error.message
    assert code in (ErrorCode.BAD_BODY, ErrorCode.NOT_FOUND, ErrorCode.OPERATION_FAILED)
    assert message.startswith("Error:")


_values = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 200) | st.text(max_size=40),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=10), inner, max_size=3),
    max_leaves=8,
)
_commands = st.fixed_dictionaries(
    {"command": st.sampled_from(["view", "create", "str_replace", "insert", "delete", "rename", "x"])},
    optional={
        "path": st.sampled_from(["/memories", "/memories/team", "/memories/team/a.md", "/tmp/x"])
        | st.text(max_size=30),
        "old_path": st.sampled_from(["/memories/team/a.md", "/memories/global/b.md"]) | st.text(max_size=20),
        "new_path": st.sampled_from(["/memories/personal/c.md", "/memories/team/a.md"]) | st.text(max_size=20),
        "file_text": st.text(max_size=60) | _values,
        "old_str": st.sampled_from(["one", "o", "\n"]) | _values,
        "new_str": st.text(max_size=20) | _values,
        "insert_line": st.integers(-2, 4) | _values,
        "insert_text": st.text(max_size=20) | _values,
        "view_range": st.lists(st.integers(-2, 4), max_size=3) | _values,
    },
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(command=_commands)
def test_any_input_gets_an_answer_that_names_no_path_of_this_machine(
    fresh_db: SqliteStore, ctx: CallContext, tmp_path: Path, command: dict[str, Any]
) -> None:
    match memory_command(fresh_db, command, ctx=ctx):
        case Success(text):
            answer = text
        case Failure(error):
            answer = error.message
    assert str(tmp_path) not in answer
    assert "/tmp/x" not in answer


@pytest.mark.parametrize(
    "command",
    [
        {"command": "str_replace", "old_str": "gamma", "new_str": "alpha"},
        {"command": "insert", "insert_line": 3, "insert_text": "beta"},
        {"command": "insert", "insert_line": 0, "insert_text": "gamma"},
    ],
)
def test_an_edit_that_makes_a_line_repeat_another_is_refused_and_nothing_changes(
    fresh_db: SqliteStore, ctx: CallContext, command: dict[str, Any]
) -> None:
    run(fresh_db, ctx, command="create", path=APOLLO, file_text="alpha\nbeta\ngamma")
    code, _ = refused(fresh_db, ctx, path=APOLLO, **command)
    assert code == "operation.failed"
    entity = fresh_db.find("Project Apollo")
    assert entity is not None and entity.observations == ["alpha", "beta", "gamma"]


def test_a_line_of_code_naming_a_secret_is_stored_as_written_and_str_replace_finds_it(
    fresh_db: SqliteStore, ctx: CallContext
) -> None:
    run(fresh_db, ctx, command="create", path=APOLLO, file_text="const token = getToken();\nreturn token;")
    run(
        fresh_db,
        ctx,
        command="str_replace",
        path=APOLLO,
        old_str="const token = getToken();",
        new_str="const token = await getToken();",
    )
    entity = fresh_db.find("Project Apollo")
    assert entity is not None and entity.observations == ["const token = await getToken();", "return token;"]
