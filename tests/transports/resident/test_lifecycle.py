"""The resident server's life: one per user and database however many cold calls start it at once, gone after an
idle period or with its folder, a stale socket replaced, another user's socket never spoken to, an upgrade answered
cold and followed by the new install's server, and a server killed mid-request never leaving a write done twice."""

from __future__ import annotations

# ruff: noqa: PTH110, PTH116  (socket paths as the product names them: str)
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from memesh import resident
from tests.backends import Backend

from .conftest import MEMESH, REPO, Home, gone, residents_of, wait_until

pytestmark = pytest.mark.one_engine("the server's life does not depend on the engine; test_parity runs both")


def _bound(path: str) -> socket.socket:
    """A socket bound at `path` (through the folder's descriptor when the path is too long for an address)."""
    from memesh.transports.hooks import wire

    made = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    target, fd = wire.address(path)
    try:
        made.bind(target)
    finally:
        if fd is not None:
            os.close(fd)
    return made


def test_eight_cold_calls_at_once_start_one_server_and_all_answer_alike(home: Home) -> None:
    expected = home.cold("recall", "auth", "--json")
    calls = [
        subprocess.Popen([str(MEMESH), "recall", "auth"], env=home.env, cwd=home.cwd, stdout=subprocess.PIPE)
        for _ in range(8)
    ]
    answers = [call.communicate(timeout=120)[0] for call in calls]
    assert all(call.returncode == 0 for call in calls)
    assert len(set(answers)) == 1 and b"auth tokens rotate weekly" in answers[0]
    pid = home.wait_serving()
    # The starters that lost the race give up once the winner answers (or after waiting for its lock).
    wait_until(lambda: residents_of(home.folder) == [pid], 30, "one resident server")
    done, warm = home.traced("recall", "auth", "--json")
    assert warm
    assert done.returncode == 0 and done.stdout.count(b"auth tokens rotate weekly") == expected.stdout.count(
        b"auth tokens rotate weekly"
    )
    assert oct(os.stat(home.socket).st_mode & 0o777) == "0o600"


def test_a_warm_call_imports_only_the_client(home: Home) -> None:
    home.start()
    done, warm = home.traced("recall", "auth", "--json")
    assert warm and done.returncode == 0
    heavy = ("returns", "json", "re", "typing", "pathlib", "memesh.store", "memesh.schema", "memesh.generated")
    assert [name for name in home.imported if name.split(".")[0] in heavy or name.startswith(heavy)] == []


def test_an_idle_server_exits_and_removes_its_socket(tmp_path: Path, backend: Backend) -> None:
    quick = Home(tmp_path, backend, MEMESH_DAEMON_IDLE_S="1")
    quick.cold("remember", "a note")
    try:
        pid = quick.start()
        wait_until(lambda: gone(pid), 30, "the idle server to exit")
        assert not os.path.exists(quick.socket)
        assert quick.pid() is None
    finally:
        quick.stop()


def test_a_server_no_request_reached_waits_two_minutes_at_most() -> None:
    assert resident.idle_limit(600.0, answered=False) == resident.FIRST_IDLE_S == 120.0
    assert resident.idle_limit(600.0, answered=True) == 600.0
    assert resident.idle_limit(1.0, answered=False) == 1.0


def test_the_server_holds_no_descriptor_its_starter_handed_on(home: Home) -> None:
    """A harness that waits for the end of a pipe it gave `memesh` (beyond stdio) is not kept waiting by the server
    that call started."""
    read_end, write_end = os.pipe()
    try:
        done = subprocess.run(
            [str(MEMESH), "stats"], env=home.env, cwd=home.cwd, capture_output=True, pass_fds=(write_end,), check=False
        )
        assert done.returncode == 0
        os.close(write_end)
        write_end = -1
        pid = home.wait_serving()
        held = {str(fd.readlink()) for fd in Path(f"/proc/{pid}/fd").iterdir()}
        assert not any(target.startswith("pipe:") for target in held), held
        os.set_blocking(read_end, False)
        assert os.read(read_end, 1) == b""  # every writer gone: the pipe's end is seen
    finally:
        os.close(read_end)
        if write_end >= 0:
            os.close(write_end)


def test_a_server_exits_when_its_folder_is_removed(home: Home) -> None:
    pid = home.start()
    shutil.rmtree(home.home / ".memesh")
    wait_until(lambda: gone(pid), 30, "the server to notice its folder is gone")


def test_a_stale_socket_is_replaced_by_the_next_server(home: Home) -> None:
    stale = _bound(home.socket)
    stale.close()  # the file stays, nothing listens: what a killed server leaves
    done, warm = home.traced("recall", "auth")
    assert not warm and done.returncode == 0 and b"auth tokens rotate weekly" in done.stdout
    home.wait_serving()  # the file now answers: the server that holds the lock replaced it
    assert home.traced("recall", "auth")[1]


@pytest.mark.skipif(os.geteuid() != 0, reason="making a file of another user needs root")
def test_a_socket_of_another_user_is_never_spoken_to_nor_removed(home: Home) -> None:
    listener = _bound(home.socket)
    listener.listen(8)  # it would answer, were anyone to connect
    os.chown(home.socket, 65534, 65534)
    try:
        listener.settimeout(0.2)
        done, warm = home.traced("recall", "auth")
        assert not warm and done.returncode == 0 and b"auth tokens rotate weekly" in done.stdout
        with pytest.raises(TimeoutError):
            listener.accept()  # the client never connected
        time.sleep(1.0)
        assert residents_of(home.folder) == []  # and started no server beside it
        # A server started by hand does not take the path either.
        subprocess.run([sys.executable, "-P", "-m", "memesh.transports.resident"], env=home.env, timeout=60, check=True)
        assert os.stat(home.socket).st_uid == 65534
    finally:
        listener.close()


def _copy_of_the_install(target: Path) -> Path:
    """The installed package copied whole (its links resolved): an install whose files the test may touch."""
    import memesh

    package = Path(memesh.__file__).parent
    shutil.copytree(package, target / "memesh", symlinks=False, ignore=shutil.ignore_patterns("__pycache__"))
    return target


def test_an_upgrade_while_it_runs_is_answered_cold_and_the_new_install_serves_next(
    tmp_path: Path, backend: Backend
) -> None:
    install = _copy_of_the_install(tmp_path / "site")
    upgraded = Home(
        tmp_path / "h", backend, PYTHONPATH=os.pathsep.join([str(install), os.environ.get("PYTHONPATH", "")])
    )
    upgraded.cold("remember", "auth tokens rotate weekly")
    try:
        old = upgraded.start()
        assert upgraded.traced("recall", "auth")[1]
        init = install / "memesh" / "__init__.py"
        later = init.stat().st_mtime_ns + 10**10
        os.utime(init, ns=(later, later))  # what a reinstall does to the package
        done, warm = upgraded.traced("recall", "auth")
        assert not warm and done.returncode == 0 and b"auth tokens rotate weekly" in done.stdout
        wait_until(lambda: gone(old), 30, "the old server to exit")
        new = upgraded.wait_serving()
        assert new != old
        assert upgraded.traced("recall", "auth")[1]
    finally:
        upgraded.stop()


@pytest.mark.sqlite_only
def test_a_server_killed_mid_write_is_not_repeated_and_a_killed_read_is_answered_cold(home: Home) -> None:
    import sqlite3

    pid = home.start()
    blocker = sqlite3.connect(home.db, timeout=1)
    blocker.execute("BEGIN IMMEDIATE")  # the server's write waits for this lock
    writer = subprocess.Popen(
        [str(MEMESH), "remember", "written once or not at all"],
        env=home.env,
        cwd=home.cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    time.sleep(2.0)  # accepted and waiting on the lock
    os.kill(pid, signal.SIGKILL)
    out, err = writer.communicate(timeout=60)
    blocker.rollback()
    blocker.close()
    assert writer.returncode == 1 and b"not run twice" in err, (out, err)
    found = home.cold("recall", "written", "once", "--json")
    assert b"written once or not at all" not in found.stdout  # never written: the server died before its commit

    pid = home.wait_serving() if home.serving() else home.start()
    blocker = sqlite3.connect(home.db, timeout=1)
    blocker.execute("BEGIN IMMEDIATE")  # recall's access count waits for it
    reader = subprocess.Popen(
        [str(MEMESH), "recall", "auth"], env=home.env, cwd=home.cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    time.sleep(2.0)
    os.kill(pid, signal.SIGKILL)
    time.sleep(0.5)
    blocker.rollback()
    blocker.close()
    out, err = reader.communicate(timeout=60)
    assert reader.returncode == 0 and b"auth tokens rotate weekly" in out, err


def test_the_switch_and_the_setting_keep_every_call_cold_and_start_nothing(home: Home) -> None:
    done, warm = home.traced("recall", "auth")
    assert not warm
    home.stop()  # the call above started one: stop it, then turn the server off both ways
    for env, setting in (({"MEMESH_DAEMON": "0"}, None), ({}, "false")):
        if setting is not None:
            assert home.cold("config", "set", "daemon", setting).returncode == 0
        for _ in range(2):
            done = home.run("recall", "auth", env=env)
            assert done.returncode == 0 and b"auth tokens rotate weekly" in done.stdout
        time.sleep(1.0)
        assert residents_of(home.folder) == []
    doctor = home.cold("doctor", "--json").stdout.decode()
    assert "off (MEMESH_DAEMON=0)" in doctor
    assert "off (config.json: daemon false)" in home.run("doctor", "--json").stdout.decode()


def test_doctor_shows_the_server_running_and_not_started(home: Home) -> None:
    assert "not started" in home.run("doctor").stdout.decode() or home.serving()
    pid = home.start()
    shown = home.run("doctor").stdout.decode()
    assert f"running (pid {pid})" in shown


def test_the_client_names_the_database_as_the_hook_wire_and_paths_do(tmp_path: Path) -> None:
    from memesh import paths
    from memesh.transports.hooks import wire

    assert resident.DB_FILENAME == paths.DB_FILENAME
    assert resident.DATABASE_URL_ENV == paths.DATABASE_URL_ENV
    for env in (
        {"HOME": str(tmp_path)},
        {"HOME": str(tmp_path), "MEMESH_DIR": str(tmp_path / "m"), "MEMESH_DB_PATH": "~/x.db"},
        {"HOME": str(tmp_path), "MEMESH_DATABASE_URL": "postgresql://u@h/db"},
    ):
        assert resident.served(env) == wire.served(env)


def test_the_repository_launcher_is_the_installed_console_script() -> None:
    text = (REPO / "pyproject.toml").read_text()
    assert 'memesh = "memesh.transports.cli.launch:entry"' in text
