"""A short `memesh` command or hook ends without the interpreter's teardown (issue 36) and loses nothing by it: its
output is whole, its exit status is kept, its exit handlers run, the database is closed as at a normal exit, a
thread the interpreter would wait for is waited for, and the garbage collector is off only for the front's short
commands."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from memesh.transports.cli.app import run

MEMESH = Path(sys.executable).with_name("memesh")

# `memesh` as its console script runs it (app.entry), reporting from an exit handler whether the collector was on.
ENTRY = """
import atexit, gc, sys
atexit.register(lambda: print("gc enabled at exit:", gc.isenabled(), file=sys.stderr))
sys.argv = ["memesh", *sys.argv[1:]]
from memesh.transports.cli.app import entry
entry()
"""


def _memesh(argv: list[str], cwd: Path) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([str(MEMESH), *argv], cwd=cwd, env=dict(os.environ), capture_output=True, check=False)


def test_a_piped_answer_is_whole_and_the_same_as_in_process(
    memesh_env: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for i in range(60):  # an export of some 40 KB, written to the pipe as the process ends
        done = _memesh(["remember", f"quick exit note {i} " + "x" * 400, "--json"], tmp_path)
        assert done.returncode == 0, done.stderr
    piped = _memesh(["export"], tmp_path)
    assert piped.returncode == 0
    assert run(["export"]) == 0
    in_process = json.loads(capsys.readouterr().out)
    exported = json.loads(piped.stdout)
    assert len(piped.stdout) > 30_000
    assert exported["entity_count"] == 60
    assert {**exported, "exported_at": None} == {**in_process, "exported_at": None}


@pytest.mark.sqlite_only
def test_a_remember_leaves_the_database_closed_as_a_normal_exit_does(memesh_env: Path, tmp_path: Path) -> None:
    done = _memesh(["remember", "closed properly", "--json"], tmp_path)
    assert done.returncode == 0, done.stderr
    database = Path(os.environ["MEMESH_DB_PATH"])
    # The last connection's close checkpoints the WAL and removes it: a process that skipped it would leave both.
    assert not database.with_name(database.name + "-wal").exists()
    assert not database.with_name(database.name + "-shm").exists()


def test_exit_statuses_and_messages_are_kept(memesh_env: Path, tmp_path: Path) -> None:
    usage = _memesh(["forget"], tmp_path)
    assert usage.returncode == 2
    assert b"--name is required" in usage.stderr
    missing = _memesh(["forget", "--name", "nothing-here", "--json"], tmp_path)
    assert missing.returncode == 1
    assert json.loads(missing.stdout)["errorCode"] == "resource.not-found"


@pytest.mark.parametrize(
    ("argv", "collector_on"),
    [(["recall", "anything", "--json"], False), (["--version"], True), (["stats", "--help"], True)],
)
def test_the_collector_is_off_only_for_the_fronts_commands_and_exit_handlers_run(
    memesh_env: Path, tmp_path: Path, argv: list[str], collector_on: bool
) -> None:
    done = subprocess.run(
        [sys.executable, "-c", ENTRY, *argv], cwd=tmp_path, env=dict(os.environ), capture_output=True, check=False
    )
    assert done.returncode == 0, done.stderr
    assert f"gc enabled at exit: {collector_on}".encode() in done.stderr


LEAVE_WITH_A_THREAD = """
import sys, threading, time
from pathlib import Path
from memesh import quick_exit

def late():
    time.sleep(0.3)
    Path(sys.argv[1]).write_text("written")

threading.Thread(target=late).start()
print("answer", flush=False)
quick_exit.leave(3)
"""


def test_leaving_waits_for_a_thread_the_interpreter_would_wait_for(tmp_path: Path) -> None:
    marker = tmp_path / "marker"
    done = subprocess.run(
        [sys.executable, "-c", LEAVE_WITH_A_THREAD, str(marker)], capture_output=True, check=False, timeout=60
    )
    assert done.returncode == 3
    assert done.stdout == b"answer\n"
    assert marker.read_text() == "written"
