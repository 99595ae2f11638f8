"""The pure rules behind the capture hooks: transcripts, snapshots, commit lines, guards."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from memesh.core import commits, guards, snapshots, transcript, triggers


def _line(kind: str, content: object, **extra: object) -> str:
    return json.dumps({"type": kind, "message": {"role": kind, "content": content}, **extra})


def test_the_last_reply_is_every_assistant_text_since_the_last_prompt() -> None:
    session = transcript.parse(
        [
            _line("user", "first"),
            _line("assistant", [{"type": "text", "text": "old"}]),
            _line("user", "second"),
            _line("assistant", [{"type": "text", "text": "part one"}]),
            _line("assistant", [{"type": "tool_use", "id": "a", "name": "Bash", "input": {"command": "ls"}}]),
            _line("user", [{"type": "tool_result", "tool_use_id": "a", "content": "boom", "is_error": True}]),
            _line("assistant", [{"type": "text", "text": "part two"}]),
            '{"half a line',
        ]
    )
    assert session.last_reply == "part one\n\npart two" and session.replies == ["old", "part one\n\npart two"]
    assert session.tool_calls[0].error == "boom" and session.malformed_lines == 1


def test_side_chain_entries_are_not_the_agent_talking() -> None:
    session = transcript.parse([_line("assistant", [{"type": "text", "text": "sub"}], isSidechain=True)])
    assert session.last_reply is None


@given(st.lists(st.text()))
def test_any_transcript_text_parses_without_raising(lines: list[str]) -> None:
    transcript.parse(lines)


def test_citations_are_collected_once_in_order() -> None:
    assert transcript.citations(["see [mem:4] and [mem:12]", "again [mem:4], not [mem:x]"]) == [4, 12]


def test_snapshot_paths_are_relative_to_the_project_and_user_paths_hidden() -> None:
    calls = [
        transcript.ToolCall("1", "Edit", {"file_path": "/work/p/src/a.py"}),
        transcript.ToolCall("2", "Write", {"file_path": "/home/alice/notes.md"}),
        transcript.ToolCall("3", "Bash", {"command": "x"}, error="api_key=abcdefgh12345678 failed\nmore"),
    ]
    derived = {s.name: s for s in snapshots.derive("s", calls, "/work/p", "p")}
    assert derived["session-s-files"].observations == ["Edited src/a.py", "Edited ~/notes.md"]
    assert "abcdefgh12345678" not in derived["session-s-fixes"].observations[0]
    assert derived["session-s-summary"].replace and not derived["session-s-files"].replace


def test_git_commit_commands_are_recognised() -> None:
    for yes in ("git commit -m x", "git add . && git commit -am 'y'", "git -C repo commit", "(cd a; git commit)"):
        assert triggers.is_git_commit(yes), yes
    for no in ("git status", "echo git commit-tree", "gitcommit", "git log --grep commit"):
        assert not triggers.is_git_commit(no), no


def test_the_commit_line_git_prints_is_read() -> None:
    line = commits.commit_line("[main (root-commit) 1a2b3c4] First\n 1 file changed")
    assert line == commits.CommitLine("main", "1a2b3c4", "First")
    assert commits.commit_line("[detached HEAD abcdef0] Fix it").branch == "detached HEAD"  # type: ignore[union-attr]
    assert commits.commit_line("nothing to commit") is None


def test_an_invalid_guard_is_ignored_and_a_valid_one_warns() -> None:
    assert guards.parse(1, "l", '{"pattern": "("}', "x") is None
    assert guards.parse(1, "l", '"just text"', "x") is None
    guard = guards.parse(2, "lesson", '{"pattern": "rm -rf /"}', "Never wipe the root", True)
    assert guard is not None
    assert guards.warnings([guard], "sudo rm -rf / --no-preserve-root", "p") == [
        "- Never wipe the root (lesson lesson) [mem:2]"
    ]
