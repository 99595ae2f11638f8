"""The suite runs in a home of its own (tests/isolation.py): no test, and no process a test starts, reaches the real
home; the session's end checks that the real ~/.memesh is as the session found it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from memesh import paths
from memesh.adapters import claude_settings_file, transcripts
from tests import isolation

SESSION = Path(os.environ[isolation.SESSION_ROOT])
REAL_HOME = Path(os.environ[isolation.REAL_HOME])
ROOT = Path(__file__).resolve().parent.parent

# Every place MeMesh writes or reads under a home, as a process started now would see them.
WHERE = """
import json
from pathlib import Path
from memesh import paths
from memesh.adapters import claude_settings_file, transcripts
print(json.dumps({
    "home": str(Path.home()),
    "memesh": str(paths.memesh_dir()),
    "db": str(paths.db_path()),
    "router": str(paths.router_socket()),
    "claude settings": str(claude_settings_file.settings_path()),
    "transcripts": str(transcripts.projects_dir()),
}))
"""


def _inside_the_session(found: dict[str, str]) -> None:
    for name, where in found.items():
        assert Path(where).is_relative_to(SESSION), (name, where)
        assert not Path(where).is_relative_to(REAL_HOME / ".memesh"), (name, where)


def test_home_and_every_memesh_path_are_the_sessions_own() -> None:
    assert SESSION.is_dir()
    assert Path.home() != REAL_HOME
    _inside_the_session(
        {
            "home": str(Path.home()),
            "memesh": str(paths.memesh_dir()),
            "db": str(paths.db_path()),
            "claude settings": str(claude_settings_file.settings_path()),
            "transcripts": str(transcripts.projects_dir()),
        }
    )


def test_a_process_a_test_starts_sees_the_same_home() -> None:
    done = subprocess.run([sys.executable, "-c", WHERE], capture_output=True, text=True, check=True)
    found = json.loads(done.stdout)
    assert found["home"] == str(Path.home())
    _inside_the_session(found)


def test_none_of_the_callers_own_settings_reach_a_test() -> None:
    leaked = [
        name
        for name in os.environ
        if isolation.cleared(name)
        and name not in ("MEMESH_DIR", "MEMESH_UPDATE_CHECK", "MEMESH_AUTHOR", "MEMESH_DAEMON")
    ]
    assert leaked == []
    assert not set(isolation.CLEARED) & set(os.environ)


def test_git_has_an_identity_of_the_sessions_own() -> None:
    done = subprocess.run(["git", "config", "--global", "user.email"], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "tests@memesh.invalid"


def test_a_listing_tells_every_entry_added_removed_or_changed(tmp_path: Path) -> None:
    folder = tmp_path / ".memesh"
    folder.mkdir()
    (folder / "kept").write_text("same")
    (folder / "changed").write_text("before")
    (folder / "removed").write_text("x")
    before = isolation.listing(folder)
    (folder / "changed").write_text("after, longer")
    (folder / "removed").unlink()
    (folder / "added.sock.lock").write_text("")
    found = isolation.changes(before, isolation.listing(folder))
    assert "added added.sock.lock" in found
    assert "removed removed" in found
    assert "changed changed" in found
    assert not any(line.endswith(" kept") for line in found)


def test_a_folder_that_is_absent_lists_empty_and_its_appearance_is_a_change(tmp_path: Path) -> None:
    folder = tmp_path / ".memesh"
    before = isolation.listing(folder)
    assert before == {}
    folder.mkdir()
    assert isolation.changes(before, isolation.listing(folder)) == ["added ."]


def test_the_suites_own_switches_survive_isolation_and_the_callers_settings_do_not() -> None:
    assert not isolation.cleared("MEMESH_TEST_BACKENDS")
    assert not isolation.cleared("MEMESH_TEST_REQUIRE_POSTGRES")
    assert isolation.cleared("MEMESH_DATABASE_URL")
    assert isolation.cleared("MEMESH_TESTING")  # only the MEMESH_TEST_ prefix is the suite's


def test_no_product_code_reads_the_suites_switches() -> None:
    shipped = [ROOT / "memesh", ROOT / "transports", ROOT / "bin", ROOT / "hooks", ROOT / "extensions"]
    readers = [
        str(path.relative_to(ROOT))
        for folder in shipped
        for path in folder.rglob("*")
        if path.is_file() and "node_modules" not in path.parts and b"MEMESH_TEST_" in path.read_bytes()
    ]
    assert readers == []


# A pytest run of its own, started from the checkout with the session's environment plus `extra`, that writes what
# it collected and each test's outcome as JSON; "no-server" makes tools/pg_cluster.py find no PostgreSQL programs,
# as on a machine without them.
RUN = """
import json, sys, types
import pytest
mode, report, *args = sys.argv[1:]
if mode == "no-server":
    from tests import backends
    backends._pg_cluster = lambda: types.SimpleNamespace(binaries=lambda: None)
class Report:
    collected, outcomes = [], {}
    def pytest_collection_finish(self, session):
        self.collected = [item.nodeid for item in session.items]
    def pytest_runtest_logreport(self, report):
        if report.when == "call" or report.outcome != "passed":
            self.outcomes[report.nodeid] = "error" if report.when != "call" and report.failed else report.outcome
found = Report()
code = pytest.main(["-p", "no:randomly", "-p", "no:xdist", "-p", "no:cacheprovider", *args], plugins=[found])
with open(report, "w") as out:
    json.dump({"collected": found.collected, "outcomes": found.outcomes}, out)
sys.exit(code)
"""
ENGINE_TEST = "tests/ops/test_forget.py::test_forgetting_a_missing_memory_is_not_found_with_the_data_body"


def _pytest(tmp_path: Path, *args: str, extra: dict[str, str], no_server: bool = False) -> tuple[int, dict[str, Any]]:
    """The exit code of a pytest run of its own, and what it collected and how each test ended."""
    report = tmp_path / f"report-{len(list(tmp_path.iterdir()))}.json"
    mode = "no-server" if no_server else "as-is"
    done = subprocess.run(
        [sys.executable, "-c", RUN, mode, str(report), *args],
        check=False,
        cwd=ROOT,
        # The run's own switches (make test sets MEMESH_TEST_REQUIRE_POSTGRES) are not the child's: only `extra`.
        env={**{k: v for k, v in os.environ.items() if not k.startswith("MEMESH_TEST_")}, **extra},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert report.exists(), done.stdout + done.stderr
    found: dict[str, Any] = json.loads(report.read_text())
    return done.returncode, found


def test_memesh_test_backends_sqlite_collects_no_postgresql_test(tmp_path: Path) -> None:
    code, found = _pytest(tmp_path, "--collect-only", ENGINE_TEST, extra={"MEMESH_TEST_BACKENDS": "sqlite"})
    assert code == pytest.ExitCode.OK
    assert found["collected"] == [f"{ENGINE_TEST}[sqlite]"]


def test_both_engines_are_collected_when_no_switch_narrows_them(tmp_path: Path) -> None:
    code, found = _pytest(tmp_path, "--collect-only", ENGINE_TEST, extra={})
    assert code == pytest.ExitCode.OK
    assert found["collected"] == [f"{ENGINE_TEST}[sqlite]", f"{ENGINE_TEST}[postgres]"]


def test_a_missing_postgresql_fails_the_run_when_the_suite_requires_it(tmp_path: Path) -> None:
    test = f"{ENGINE_TEST}[postgres]"
    code, found = _pytest(tmp_path, test, extra={"MEMESH_TEST_REQUIRE_POSTGRES": "1"}, no_server=True)
    assert (code, found["outcomes"]) == (pytest.ExitCode.TESTS_FAILED, {test: "error"})


def test_a_missing_postgresql_is_a_skip_when_the_suite_does_not_require_it(tmp_path: Path) -> None:
    test = f"{ENGINE_TEST}[postgres]"
    code, found = _pytest(tmp_path, test, extra={}, no_server=True)
    assert (code, found["outcomes"]) == (pytest.ExitCode.OK, {test: "skipped"})


# The guard's own tests: a pytest run of its own, told that `home` is the real home (MEMESH_TEST_REAL_HOME), whose
# one test writes there itself, through a process it starts, or waits while a process outside the run writes there.
GUARD_TEST = "tests/test_isolation.py::test_a_child_run_writes_where_the_guard_test_says"
CHILD_MODE = "MEMESH_TEST_GUARD_CHILD"  # "test", "subprocess" or "outside"; unset in every ordinary run
CHILD_SIGNALS = "MEMESH_TEST_GUARD_SIGNALS"  # a folder: "started" from the child, "written" from the parent


def test_a_child_run_writes_where_the_guard_test_says() -> None:
    mode = os.environ.get(CHILD_MODE)
    if mode is None:
        pytest.skip("runs only as the child of the guard's own tests")
    real = Path(os.environ[isolation.REAL_HOME_OVERRIDE]) / ".memesh"
    signals = Path(os.environ[CHILD_SIGNALS])
    if mode == "test":
        (real / "memories.jsonl").write_text("{}\n", encoding="utf-8")
    elif mode == "subprocess":
        write = "import sqlite3, sys; sqlite3.connect(sys.argv[1]).execute('create table t (x)')"
        subprocess.run([sys.executable, "-c", write, str(real / "scratch.db")], check=True)
    else:
        (signals / "started").touch()
        deadline = time.monotonic() + 60
        while not (signals / "written").exists() and time.monotonic() < deadline:
            time.sleep(0.05)


def _guarded_run(tmp_path: Path, mode: str) -> tuple[int, str]:
    """The exit code and output of a child run in `mode`; for "outside", this process writes to the stand-in's
    .memesh while the child runs, as the user's own MeMesh would."""
    home = tmp_path / "real-home"
    (home / ".memesh").mkdir(parents=True)
    (home / ".memesh" / "knowledge-graph.db").write_bytes(b"the user's own")
    signals = tmp_path / "signals"
    signals.mkdir()
    inherited = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("MEMESH_TEST_", "PYTEST_MEMESH_")) and k not in ("PYTHONPATH", "HOME")
    }
    child = subprocess.Popen(
        [sys.executable, "-m", "pytest", "-p", "no:randomly", "-p", "no:xdist", "-p", "no:cacheprovider", GUARD_TEST],
        cwd=ROOT,
        env={
            **inherited,
            "HOME": str(home),
            isolation.REAL_HOME_OVERRIDE: str(home),
            CHILD_MODE: mode,
            CHILD_SIGNALS: str(signals),
            "MEMESH_TEST_BACKENDS": "sqlite",
        },
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    if mode == "outside":
        deadline = time.monotonic() + 60
        while not (signals / "started").exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        (home / ".memesh" / "knowledge-graph.db").write_bytes(b"the user's own, one memory more")
        (home / ".memesh" / "knowledge-graph.db-wal").write_bytes(b"")
        (signals / "written").touch()
    output, _ = child.communicate(timeout=120)
    return child.returncode, output


def test_a_write_to_the_real_memesh_by_a_process_outside_the_suite_does_not_fail_the_run(tmp_path: Path) -> None:
    code, output = _guarded_run(tmp_path, "outside")
    assert code == pytest.ExitCode.OK, output
    assert "1 passed" in output


@pytest.mark.parametrize("mode", ["test", "subprocess"])
def test_a_write_to_the_real_memesh_by_a_test_or_a_process_it_starts_fails_the_run(tmp_path: Path, mode: str) -> None:
    code, output = _guarded_run(tmp_path, mode)
    assert code == pytest.ExitCode.TESTS_FAILED, output
    assert "1 passed" in output  # the test itself passes: the guard is what fails the run
    assert str(tmp_path / "real-home" / ".memesh") in output
