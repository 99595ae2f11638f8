"""Hermes capture: the Stop hook's session-insight rules over a chat message list, and decision/lesson turns."""

from __future__ import annotations

import json
from typing import Any

import pytest
from returns.result import Failure

from memesh.context import CallContext
from memesh.core import hermes_capture as rules
from memesh.errors import ErrorCode
from memesh.ops.hermes import capture_session, capture_turn
from memesh.store.sqlite import SqliteStore
from tests.calls import call


def tool_call(name: str, **args: Any) -> dict[str, Any]:
    return {"id": "c", "type": "function", "function": {"name": name, "arguments": json.dumps(args)}}


def session(calls: list[dict[str, Any]], results: list[Any]) -> dict[str, Any]:
    messages: list[dict[str, Any]] = [{"role": "user", "content": "fix the build"}]
    messages.append({"role": "assistant", "content": None, "tool_calls": calls})
    messages += [{"role": "tool", "tool_call_id": "c", "content": r} for r in results]
    return {"messages": messages}


EDITING = session(
    [
        tool_call("read_file", path="src/app.py"),
        tool_call("write_file", path="src/app.py", content="x"),
        tool_call("terminal", command="pytest -q tests/ --token=ghp_abcdefghijklmnopqrstuvwxyz0123456789"),
        tool_call("terminal", command="cat > notes/setup.md <<'EOF'\nhi\nEOF"),
    ],
    [
        json.dumps({"content": "print(1)"}),
        json.dumps({"success": True}),
        json.dumps({"exit_code": 1, "output": "FAILED test_app.py"}),
        "plain text result",
    ],
)


def test_a_session_with_edits_and_errors_stores_files_and_fixes(fresh_db: SqliteStore, ctx: CallContext) -> None:
    answer = capture_session(fresh_db, "s-1", EDITING, ctx=ctx).unwrap()
    assert answer["outcome"] == "wrote"
    assert answer["written"] == ["session-s-1-files", "session-s-1-fixes"]
    assert (answer["toolCallCount"], answer["filesEdited"], answer["errorsEncountered"]) == (4, 2, 1)
    assert answer["toolResultsNonJson"] == 1
    files = fresh_db.find("session-s-1-files")
    assert files is not None and files.type == "session-insight"
    assert files.observations[0] == "Session edited 2 file(s): app.py, setup.md"
    assert {"platform:hermes", "session:s-1", "file:app.py", "file:app"} <= set(files.tags)
    assert files.metadata["provenance"]["source_host"] == "hermes"


def test_capturing_the_same_session_again_adds_nothing(fresh_db: SqliteStore, ctx: CallContext) -> None:
    capture_session(fresh_db, "s-1", EDITING, ctx=ctx).unwrap()
    before = [fresh_db.find(n) for n in ("session-s-1-files", "session-s-1-fixes")]
    capture_session(fresh_db, "s-1", EDITING, ctx=ctx).unwrap()
    after = [fresh_db.find(n) for n in ("session-s-1-files", "session-s-1-fixes")]
    assert [e.observations for e in after if e] == [e.observations for e in before if e]


def test_a_forgotten_line_does_not_come_back_on_the_next_capture(fresh_db: SqliteStore, ctx: CallContext) -> None:
    capture_session(fresh_db, "s-1", EDITING, ctx=ctx).unwrap()
    call("forget", fresh_db, {"name": "session-s-1-files", "observation": "Total tool calls: 4"}, ctx).unwrap()
    capture_session(fresh_db, "s-1", EDITING, ctx=ctx).unwrap()
    files = fresh_db.find("session-s-1-files")
    assert files is not None and "Total tool calls: 4" not in files.observations


def test_a_heavy_session_gets_a_summary_with_redacted_commands(fresh_db: SqliteStore, ctx: CallContext) -> None:
    calls = [tool_call("terminal", command="pytest --token=ghp_abcdefghijklmnopqrstuvwxyz0123456789")] * 20
    capture_session(fresh_db, "heavy", session(calls, []), ctx=ctx).unwrap()
    summary = fresh_db.find("session-heavy-summary")
    assert summary is not None
    assert summary.observations[0] == "Significant session: 20 tool calls, 0 files edited"
    assert "ghp_" not in json.dumps(summary.observations)


def test_fewer_than_three_tool_calls_stores_nothing(fresh_db: SqliteStore, ctx: CallContext) -> None:
    answer = capture_session(fresh_db, "q", session([tool_call("write_file", path="a")] * 2, []), ctx=ctx).unwrap()
    assert answer["outcome"] == "skipped" and fresh_db.count() == 0


def test_unknown_tools_are_reported_and_still_counted() -> None:
    activity = rules.activity_from_messages(session([tool_call("frobnicate")] * 3, [])["messages"])
    assert activity.tool_calls == 3 and activity.unrecognized_tools == ["frobnicate"]


def test_a_tool_result_is_an_error_only_when_its_json_says_so() -> None:
    results = ['{"error": ""}', '{"success": false}', '{"exit_code": 0}', '{"exit_code": 2}', '"Error: x"', "Error"]
    activity = rules.activity_from_messages(session([], results)["messages"])
    assert len(activity.errors) == 2 and activity.tool_results_non_json == 2


@pytest.mark.parametrize(
    ("reply", "kind"),
    [
        ("We decided to use Postgres for the queue.", "decision"),
        ("Decision: ship on Friday.", "decision"),
        ("Let's go with the smaller model.", "decision"),
        ("The root cause was a stale lock file.", "lesson"),
        ("Lesson learned: pin the toolchain.", "lesson"),
        ("We have not decided yet.", None),
        ("I haven't settled on a name.", None),
        ("Have we decided on the database?", None),
        ('The reviewer wrote "we decided to drop it" in the thread.', None),
        ("```\n# we decided\n```", None),
        ("Here is the file you asked for.", None),
    ],
)
def test_a_turn_is_classified_from_the_assistants_words(reply: str, kind: str | None) -> None:
    found = rules.classify_turn(reply)
    assert (found[0] if found else None) == kind


def test_a_decision_turn_is_stored_once_and_a_retry_adds_no_second_row(fresh_db: SqliteStore, ctx: CallContext) -> None:
    body = {"user": "which db?", "assistant": "We decided to use SQLite."}
    first = capture_turn(fresh_db, "s-2", body, ctx=ctx).unwrap()
    stored = fresh_db.find(first["name"])
    second = capture_turn(fresh_db, "s-2", body, ctx=ctx).unwrap()
    assert first["outcome"] == "wrote" and first["new"] is True
    # The retry says what happened (nothing) and writes nothing: the memory is as the first capture left it.
    assert second == {"outcome": "skipped", "reason": "this turn is stored already"}
    assert fresh_db.count() == 1
    turn = fresh_db.find(first["name"])
    assert turn == stored
    assert turn is not None and turn.type == "conversation"
    assert {"platform:hermes", "session:s-2", "signal:decision"} <= set(turn.tags)
    assert turn.observations == ["User: which db?", "Assistant: We decided to use SQLite."]


def test_the_users_text_is_not_classified(fresh_db: SqliteStore, ctx: CallContext) -> None:
    body = {"user": "[MeMesh recall]\n- we decided to use X", "assistant": "Sure, what next?"}
    assert capture_turn(fresh_db, "s", body, ctx=ctx).unwrap()["outcome"] == "skipped"
    assert fresh_db.count() == 0


@pytest.mark.parametrize("session_id", ["", "a b", "x" * 129, "a/b", "ü"])
def test_a_bad_session_id_is_refused(fresh_db: SqliteStore, ctx: CallContext, session_id: str) -> None:
    match capture_turn(fresh_db, session_id, {"user": "", "assistant": "We decided."}, ctx=ctx):
        case Failure(error):
            assert error.code == ErrorCode.BAD_PARAM
        case _:
            raise AssertionError("accepted")
    assert fresh_db.count() == 0


def test_wrong_shapes_are_refused() -> None:
    assert rules.read_input(b"nope").failure().code == ErrorCode.BAD_BODY
    assert rules.read_input(b"[]").failure().code == ErrorCode.BAD_BODY
    assert rules.read_input(b" " * (8 * 1024 * 1024 + 1)).failure().code == ErrorCode.PAYLOAD_TOO_LARGE
    assert isinstance(rules.session_messages({"messages": {}}), Failure)
    assert isinstance(rules.turn_texts({"user": "x"}), Failure)
