"""Whom the router's clients trust and how routers share a socket path (issue 23): only this user's socket, in this
user's folder, answered by this user's process; one router per path; nothing but its own socket ever removed."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from memesh.adapters.router_client import RouterClient
from memesh.adapters.router_host import HostAdapter

MEMESH_BIN = Path(sys.executable).parent / "memesh"
PROJECT = "demo~" + "4" * 32
NOBODY = 65534
as_root = pytest.mark.skipif(os.getuid() != 0, reason="making a file or process of another user needs root")


@pytest.fixture
def folder() -> Iterator[Path]:
    # A short path: a Unix socket's path is limited to about 100 bytes, and pytest's tmp_path can be longer.
    with tempfile.TemporaryDirectory(prefix="mt", dir="/tmp") as name:
        path = Path(name) / "memesh"
        path.mkdir(mode=0o700)
        yield path


def _env(folder: Path, db: Path | None = None) -> dict[str, str]:
    return {**os.environ, "MEMESH_DIR": str(folder), "MEMESH_DB_PATH": str(db or folder / "k.db")}


def _router(folder: Path, db: Path | None = None) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [str(MEMESH_BIN), "message", "router"], env=_env(folder, db), stderr=subprocess.PIPE, text=True
    )


def _start_router(folder: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(MEMESH_BIN), "message", "router"],
        env=_env(folder),
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )


def _send_to_session(folder: Path, db: Path | None = None) -> subprocess.CompletedProcess[str]:
    argv = [
        str(MEMESH_BIN), "message", "send", "--project", PROJECT, "--sender", "author", "--recipient", "sess-1",
        "--idempotency-key", "k", "--target-kind", "session", "--payload-stdin", "--json",
    ]  # fmt: skip
    return subprocess.run(
        argv, input="please review", env=_env(folder, db), capture_output=True, text=True, timeout=60, check=False
    )


def _stop(process: subprocess.Popen[str]) -> int:
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
    try:
        return process.wait(timeout=30)
    except subprocess.TimeoutExpired:
        process.kill()
        return process.wait()


def test_of_routers_started_at_the_same_moment_one_runs_and_the_others_say_one_already_runs(folder: Path) -> None:
    processes = [_router(folder) for _ in range(3)]
    try:
        time.sleep(0.5)
        deadline = time.monotonic() + 30
        while sum(p.poll() is not None for p in processes) < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
        ended = [p for p in processes if p.poll() is not None]
        [running] = [p for p in processes if p.poll() is None]
        assert len(ended) == 2
        for process in ended:
            assert process.stderr is not None
            assert process.returncode == 1 and "already running" in process.stderr.read()
        assert running.stderr is not None and "listening on" in running.stderr.readline()
        assert RouterClient(folder / "router.sock").ping()
        assert _stop(running) == 0
        assert not (folder / "router.sock").exists()
    finally:
        for process in processes:
            _stop(process)


def test_a_router_that_stops_leaves_a_socket_that_is_not_its_own_in_place(folder: Path) -> None:
    process = _router(folder)
    try:
        assert process.stderr is not None and "listening on" in process.stderr.readline()
        socket_path = folder / "router.sock"
        socket_path.rename(folder / "moved.sock")
        other = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        other.bind(str(socket_path))  # another router's socket, made while this one ran
        try:
            assert _stop(process) == 0
            assert socket_path.exists()
        finally:
            other.close()
    finally:
        _stop(process)


def test_a_socket_a_killed_router_left_is_replaced(folder: Path) -> None:
    left = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    left.bind(str(folder / "router.sock"))
    left.close()  # the file stays, nothing listens
    process = _router(folder)
    try:
        assert process.stderr is not None and "listening on" in process.stderr.readline()
        assert RouterClient(folder / "router.sock").ping()
    finally:
        assert _stop(process) == 0


def test_a_regular_file_at_the_socket_path_is_refused_by_name_and_kept(folder: Path) -> None:
    (folder / "router.sock").write_text("my notes")
    started = _start_router(folder)
    assert started.returncode == 1 and "router.sock is a regular file, not the router's socket" in started.stderr
    assert "Traceback" not in started.stderr and (folder / "router.sock").read_text() == "my notes"
    assert RouterClient(folder / "router.sock").request({"op": "ping"}, 2.0) == "router.sock is not a socket"


@pytest.mark.parametrize("points_to", ["nowhere", "k.db"])
def test_a_symlink_at_the_socket_path_dangling_or_not_is_refused_by_name_and_kept(folder: Path, points_to: str) -> None:
    (folder / "router.sock").symlink_to(folder / points_to)
    started = _start_router(folder)
    assert started.returncode == 1 and "router.sock is a symbolic link" in started.stderr
    assert "Traceback" not in started.stderr and (folder / "router.sock").is_symlink()


def test_a_send_to_a_session_through_a_socket_path_that_is_not_a_socket_is_router_unreachable(folder: Path) -> None:
    (folder / "router.sock").write_text("")
    sent = _send_to_session(folder)
    assert sent.returncode == 1 and json.loads(sent.stdout)["errorCode"] == "router_unreachable"


@as_root
def test_a_memesh_folder_of_another_user_starts_no_router_and_its_socket_is_not_used(folder: Path) -> None:
    db = folder.parent / "k.db"
    os.chown(folder, NOBODY, NOBODY)
    started = subprocess.run(
        [str(MEMESH_BIN), "message", "router"], env=_env(folder, db), capture_output=True, text=True, timeout=30,
        check=False,
    )  # fmt: skip
    assert started.returncode == 1 and "belongs to another user (uid 65534)" in started.stderr
    assert "MEMESH_DIR" in started.stderr and not (folder / "router.sock").exists()
    sent = _send_to_session(folder, db)
    assert sent.returncode == 1 and json.loads(sent.stdout)["errorCode"] == "router_unreachable"
    assert sent.stderr.count("belongs to another user") == 1 and "MEMESH_DIR" in sent.stderr


FOREIGN_ROUTER = textwrap.dedent(
    """
    import socket, sys
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(sys.argv[1])
    server.listen(8)
    print("ready", flush=True)
    while True:
        conn, _ = server.accept()
        conn.settimeout(2)
        try:
            heard = conn.recv(65536)
        except OSError:
            heard = b""
        with open(sys.argv[2], "ab") as log:
            log.write(heard)
        conn.sendall(b'{"ok": true, "registrations": [], "generation": 1}\\n')
        conn.close()
    """
)


@pytest.fixture
def foreign_router(folder: Path) -> Iterator[dict[str, Any]]:
    """A process of another user listening at router.sock in this user's folder, logging what it hears."""
    folder.parent.chmod(0o755)
    folder.chmod(0o777)  # so the other user can make its socket here
    heard = folder.parent / "heard"
    heard.touch(mode=0o666)
    heard.chmod(0o666)
    argv = ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups", sys.executable, "-c"]
    process = subprocess.Popen(
        [*argv, FOREIGN_ROUTER, str(folder / "router.sock"), str(heard)], stdout=subprocess.PIPE, text=True
    )
    try:
        assert process.stdout is not None and process.stdout.readline().strip() == "ready"
        folder.chmod(0o700)
        yield {"socket": folder / "router.sock", "heard": heard}
    finally:
        process.kill()
        process.wait()


@as_root
def test_a_socket_of_another_user_is_not_talked_to(folder: Path, foreign_router: dict[str, Any]) -> None:
    answer = RouterClient(foreign_router["socket"]).request({"op": "ping"}, 2.0)
    assert answer == f"the router socket belongs to another user (uid {NOBODY})"
    assert _send_to_session(folder).returncode == 1
    assert foreign_router["heard"].read_bytes() == b""


@as_root
def test_a_router_process_of_another_user_hears_nothing_even_behind_this_users_socket_file(
    folder: Path, foreign_router: dict[str, Any]
) -> None:
    os.chown(foreign_router["socket"], os.getuid(), os.getgid())  # the file says ours; the peer is not
    answer = RouterClient(foreign_router["socket"]).request({"op": "ping"}, 2.0)
    assert answer == f"the router is run by another user (uid {NOBODY})"
    sent = _send_to_session(folder)
    assert sent.returncode == 1 and json.loads(sent.stdout)["errorCode"] == "router_unreachable"
    assert foreign_router["heard"].read_bytes() == b""


@as_root
@pytest.mark.anyio
async def test_a_host_session_registers_with_no_router_of_another_user(
    folder: Path, foreign_router: dict[str, Any]
) -> None:
    os.chown(foreign_router["socket"], os.getuid(), os.getgid())

    async def accept(envelope: dict[str, Any]) -> bool | str:
        return True

    adapter = HostAdapter(
        session_id="sess-1", principal_id="reviewer", project=PROJECT, host_kind="claude-code", accept=accept,
        path=foreign_router["socket"],
    )  # fmt: skip
    with pytest.raises(RuntimeError, match="run by another user"):
        await adapter.connect()
    assert foreign_router["heard"].read_bytes() == b""
