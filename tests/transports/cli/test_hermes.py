"""`memesh hermes …` as the Hermes plugin runs it: a real process, JSON on stdin, one JSON line out."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.transports.cli.conftest import Process

SESSION = {
    "messages": [
        {"role": "user", "content": "fix it"},
        {
            "role": "assistant",
            "tool_calls": [
                {"function": {"name": "write_file", "arguments": json.dumps({"path": "a/app.py"})}},
                {"function": {"name": "terminal", "arguments": json.dumps({"command": "pytest -q tests/unit"})}},
                {"function": {"name": "read_file", "arguments": "{}"}},
            ],
        },
        {"role": "tool", "content": json.dumps({"exit_code": 1, "error": "AssertionError in test_app"})},
        {"role": "tool", "content": "plain text"},
    ]
}


def one_line(out: str) -> Any:
    lines = out.splitlines()
    assert len(lines) == 1, out
    return json.loads(lines[0])


def test_capture_session_answers_one_json_line_and_a_retry_adds_nothing(memesh_process: Process) -> None:
    first = memesh_process("hermes", "capture-session", "--session", "20260101_abc", stdin=json.dumps(SESSION))
    assert first.code == 0, first.err
    answer = one_line(first.out)
    assert answer["written"] == ["session-20260101_abc-files", "session-20260101_abc-fixes"]
    assert answer["toolResultsNonJson"] == 1
    before = memesh_process("recall", "--tag", "platform:hermes", "--json").out
    assert memesh_process("hermes", "capture-session", "--session", "20260101_abc", stdin=json.dumps(SESSION)).code == 0
    after = json.loads(memesh_process("recall", "--tag", "platform:hermes", "--json").out)
    assert [e["observations"] for e in after["entities"]] == [e["observations"] for e in json.loads(before)["entities"]]
    assert all(e["metadata"]["provenance"]["source_host"] == "hermes" for e in after["entities"])


def test_capture_turn_stores_a_decision_and_skips_chatter(memesh_process: Process) -> None:
    turn = {"user": "which queue?", "assistant": "We decided to use Redis streams."}
    wrote = one_line(memesh_process("hermes", "capture-turn", "--session", "s", stdin=json.dumps(turn)).out)
    assert wrote["outcome"] == "wrote" and wrote["kind"] == "decision"
    chatter = {"user": "hi", "assistant": "We have not decided yet."}
    assert one_line(memesh_process("hermes", "capture-turn", "--session", "s", stdin=json.dumps(chatter)).out) == {
        "outcome": "skipped",
        "reason": "no decision or lesson stated in the reply",
    }
    recalled = one_line(memesh_process("hermes", "recall", "--session", "s", stdin='{"query": "Redis"}').out)
    assert recalled["count"] == 1 and recalled["context"].startswith("[MeMesh recall]\n- (conversation) hermes-turn-s-")


@pytest.mark.parametrize(
    ("argv", "stdin"),
    [
        (("capture-turn", "--session", "s"), "not json"),
        (("capture-turn", "--session", "s"), "[1, 2]"),
        (("capture-turn", "--session", "s"), "[" * 100_000 + "]" * 100_000),  # past the parser's depth: no traceback
        (("capture-turn", "--session", "s"), '{"user": "x"}'),
        (("capture-session", "--session", "s"), '{"messages": "all"}'),
        (("capture-turn", "--session", "bad id"), '{"user": "", "assistant": "We decided."}'),
        (("capture-turn", "--session", "x" * 129), '{"user": "", "assistant": "We decided."}'),
        (("capture-turn",), '{"user": "", "assistant": "We decided."}'),
        (
            ("capture-turn", "--session", "s"),
            '{"user": "", "assistant": "We decided.", "pad": "' + "x" * (8 << 20) + '"}',
        ),
        (("recall", "--session", "s"), '{"query": 3}'),
    ],
)
def test_bad_input_exits_1_with_a_message_and_stores_nothing(
    memesh_process: Process, argv: tuple[str, ...], stdin: str
) -> None:
    done = memesh_process("hermes", *argv, stdin=stdin)
    assert done.code == 1 and done.out == "" and done.err.startswith("Error: ")
    assert json.loads(memesh_process("recall", "--json").out)["entities"] == []


def test_input_is_never_read_from_a_terminal(memesh_process: Process) -> None:
    done = memesh_process.at_terminal("hermes", "capture-turn", "--session", "s", typed='{"user":"","assistant":""}\n')
    assert done.code == 1 and "stdin" in done.err


def test_a_capture_session_rerun_that_adds_nothing_reports_skipped(memesh_process: Process) -> None:
    args = ("hermes", "capture-session", "--session", "20260101_abc")
    assert one_line(memesh_process(*args, stdin=json.dumps(SESSION)).out)["outcome"] == "wrote"
    again = one_line(memesh_process(*args, stdin=json.dumps(SESSION)).out)
    assert (again["outcome"], again["reason"], again["written"]) == (
        "skipped",
        "nothing new in the session insights",
        [],
    )
