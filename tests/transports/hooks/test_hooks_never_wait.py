"""No hook input makes a hook wait (issue 23): a transcript_path that is a FIFO, a device, a folder, a symlink to
one or a huge file is answered in a few seconds, cold and warm, and no process is left reading it."""

from __future__ import annotations

import errno
import os
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from .conftest import HookEnv, shipped_command
from .test_warm_path import memesh_mcp

A_FEW_SECONDS = 5.0  # Claude Code gives a hook 10 s (hooks/hooks.json) and then kills it

Make = Callable[[Path], Path]


def _fifo(folder: Path) -> Path:
    os.mkfifo(folder / "s1.jsonl")
    return folder / "s1.jsonl"


def _link_to_fifo(folder: Path) -> Path:
    os.mkfifo(folder / "pipe")
    (folder / "s1.jsonl").symlink_to(folder / "pipe")
    return folder / "s1.jsonl"


def _link_to_dev_zero(folder: Path) -> Path:
    (folder / "s1.jsonl").symlink_to("/dev/zero")  # endless: a read to the end never ends
    return folder / "s1.jsonl"


def _folder(folder: Path) -> Path:
    (folder / "s1.jsonl").mkdir()
    return folder / "s1.jsonl"


def _huge_sparse_file(folder: Path) -> Path:
    with (folder / "s1.jsonl").open("wb") as handle:
        handle.truncate(4 << 30)  # 4 GiB of zero bytes, none on disk: only the newest 16 MiB may be read
    return folder / "s1.jsonl"


SHAPES: dict[str, Make] = {
    "fifo": _fifo,
    "symlink to a fifo": _link_to_fifo,
    "symlink to /dev/zero": _link_to_dev_zero,
    "folder": _folder,
    "4 GiB sparse file": _huge_sparse_file,
}
EVENTS = ["Stop", "PreCompact"]


def _timed_hook(env: HookEnv, event: str, transcript: Path) -> tuple[float, int]:
    payload = f'{{"session_id": "s1", "transcript_path": "{transcript}", "cwd": "{env.project_dir}"}}'
    started = time.monotonic()
    try:
        done = subprocess.run(
            ["sh", "-c", shipped_command(event)],
            input=payload.encode(),
            capture_output=True,
            env=env.env,
            cwd=env.project_dir,
            timeout=3 * A_FEW_SECONDS,
            check=False,
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"{event} with that transcript_path was still running after {3 * A_FEW_SECONDS} s")
    return time.monotonic() - started, done.returncode


def _nobody_reads(fifo: Path) -> bool:
    """Whether no process holds (or waits in an open of) the FIFO for reading: a writer's non-blocking open then
    finds no reader."""
    try:
        fd = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
    except OSError as exc:
        return exc.errno == errno.ENXIO
    os.close(fd)
    return False


def _transcript_folder(env: HookEnv) -> Path:
    folder = env.home / ".claude" / "projects" / "-tmp-proj"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


@pytest.mark.parametrize("event", EVENTS)
@pytest.mark.parametrize("shape", list(SHAPES))
def test_a_transcript_path_that_is_no_regular_file_is_answered_in_a_few_seconds(
    hook_env: HookEnv, event: str, shape: str
) -> None:
    transcript = SHAPES[shape](_transcript_folder(hook_env))
    took, status = _timed_hook(hook_env, event, transcript)
    assert status == 0 and took < A_FEW_SECONDS
    assert {"transcript unreadable"} <= {r.get("reason") for r in hook_env.outcomes()} or shape == "4 GiB sparse file"
    if shape in ("fifo", "symlink to a fifo"):
        assert _nobody_reads(transcript)


@pytest.mark.parametrize("shape", ["fifo", "symlink to a fifo", "symlink to /dev/zero"])
def test_on_the_warm_path_such_a_transcript_leaves_no_server_thread_reading(hook_env: HookEnv, shape: str) -> None:
    transcript = SHAPES[shape](_transcript_folder(hook_env))
    with memesh_mcp(hook_env):
        for event in EVENTS:
            took, status = _timed_hook(hook_env, event, transcript)
            assert status == 0 and took < A_FEW_SECONDS
        if shape != "symlink to /dev/zero":
            assert _nobody_reads(transcript)
        took, status = _timed_hook(hook_env, "Stop", transcript)  # the server still takes hooks at once
        assert status == 0 and took < A_FEW_SECONDS
    assert [r["reason"] for r in hook_env.outcomes() if r["hook"] == "session-summary"] == ["transcript unreadable"] * 2
