"""Transcript evidence: which turns are visible, which recent turns a package keeps, and the scan's limits."""

from __future__ import annotations

import json
import os
import time
from datetime import UTC, datetime
from pathlib import Path

import pytest

from memesh.adapters.transcripts import Workspace, scan, slug
from memesh.core.proposals import encoded_size
from memesh.core.transcripts import Turn, recent_turns, recorded_cwd, visible_turns

NOW = datetime.now(UTC)


def _user(text: str, cwd: str = "/w") -> str:
    return json.dumps({"type": "user", "message": {"role": "user", "content": text}, "cwd": cwd})


def test_only_visible_user_and_assistant_text_is_kept() -> None:
    lines = [
        json.dumps({"type": "summary", "summary": "not a turn"}),
        _user("typed by a person"),
        json.dumps({"type": "user", "isMeta": True, "message": {"content": "injected by the host"}}),
        json.dumps({"type": "user", "message": {"content": "<system-reminder>hidden</system-reminder>"}}),
        json.dumps({"type": "user", "message": {"content": [{"type": "tool_result", "content": "tool said"}]}}),
        json.dumps(
            {
                "type": "assistant",
                "message": {
                    "content": [
                        {"type": "thinking", "thinking": "hidden thought"},
                        {"type": "text", "text": "shown answer"},
                        {"type": "tool_use", "name": "Bash", "input": {"command": "rm"}},
                    ]
                },
            }
        ),
        "{torn line",
    ]
    turns = visible_turns("\n".join(lines).encode())
    assert turns == [Turn("user", "typed by a person"), Turn("assistant", "shown answer")]


def test_secrets_and_the_home_folder_are_not_kept() -> None:
    data = _user("my key sk-" + "a" * 40 + " is in /home/alice/project").encode()
    [turn] = visible_turns(data, home="/home/alice")
    assert turn.text == "my key ***REDACTED*** is in ~/project"


def test_the_recorded_cwd_is_the_first_top_level_one() -> None:
    data = "\n".join([json.dumps({"type": "x"}), _user("hi", "/first"), _user("hi", "/second")]).encode()
    assert recorded_cwd(data) == "/first"
    assert recorded_cwd(_user("x").replace('"cwd": "/w"', '"other": 1').encode()) is None


def test_at_most_the_100_most_recent_turns_are_kept_in_order() -> None:
    turns = [Turn("user", f"turn {i}") for i in range(150)]
    kept = recent_turns(turns).turns
    assert len(kept) == 100
    assert kept[0].text == "turn 50" and kept[-1].text == "turn 149"


def test_at_most_48_kib_of_recent_turns_are_kept() -> None:
    turns = [Turn("assistant", "x" * 10_000) for _ in range(10)]
    recent = recent_turns(turns)
    assert len(recent.turns) == 4 and recent.clipped == 0
    assert sum(len(json.dumps(t.as_json())) for t in recent.turns) <= 48 * 1024


@pytest.mark.parametrize("text", ["y" * 60_000, '"\\\n' * 20_000, "é" * 40_000, "\x01" * 30_000])
def test_a_newest_turn_over_48_kib_is_clipped_to_fit_rather_than_leaving_none(text: str) -> None:
    recent = recent_turns([Turn("user", "short question"), Turn("assistant", text)])
    assert recent.clipped == 1 and len(recent.turns) == 1
    (turn,) = recent.turns
    assert turn.role == "assistant" and turn.text.endswith("…")
    assert text.startswith(turn.text[:-1].rstrip())
    assert 2 + encoded_size(turn.as_json()) <= 48 * 1024
    assert len(turn.text) > 1_000


def _session(folder: Path, name: str, body: bytes, age_days: float = 0) -> None:
    path = folder / f"{name}.jsonl"
    path.write_bytes(body)
    moment = time.time() - age_days * 86400
    os.utime(path, (moment, moment))


def _folder(base: Path, workspace: Workspace) -> Path:
    folder = base / slug(workspace.root)
    folder.mkdir(parents=True)
    return folder


def test_more_than_256_candidates_refuses_the_directory(tmp_path: Path) -> None:
    workspace = Workspace("/w")
    folder = _folder(tmp_path, workspace)
    for i in range(257):
        _session(folder, f"s{i:03d}", _user("hi").encode())
    result = scan(workspace, NOW, tmp_path)
    assert result.sessions == []
    assert result.skipped == {"too_many_candidates": 257}


def test_a_file_over_8_mib_is_skipped_and_over_16_mib_in_all_refuses_the_scan(tmp_path: Path) -> None:
    workspace = Workspace("/w")
    folder = _folder(tmp_path, workspace)
    padding = (_user("pad") + "\n").encode()
    _session(folder, "huge", padding * (8 * 1024 * 1024 // len(padding) + 1))
    _session(folder, "small", _user("hi").encode())
    result = scan(workspace, NOW, tmp_path)
    assert [s.session_id for s in result.sessions] == ["small"]
    assert result.skipped == {"too_large": 1}
    for i in range(3):
        _session(folder, f"big{i}", padding * (6 * 1024 * 1024 // len(padding)))
    refused = scan(workspace, NOW, tmp_path)
    assert refused.sessions == []
    assert refused.skipped["scan_too_large"] == 4


def test_sessions_older_than_3_days_or_of_another_folder_are_not_candidates(tmp_path: Path) -> None:
    workspace = Workspace("/w")
    folder = _folder(tmp_path, workspace)
    _session(folder, "old", _user("old").encode(), age_days=3.1)
    _session(folder, "other", _user("x", cwd="/w-other").encode())
    _session(folder, "mine", _user("mine").encode())
    result = scan(workspace, NOW, tmp_path)
    assert [s.session_id for s in result.sessions] == ["mine"]
    assert result.skipped == {"other_project": 1}
