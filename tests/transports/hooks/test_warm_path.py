"""The warm path: with a memesh-mcp of the same database running, the shipped hook command hands its event to it
over the owner-only socket and answers exactly as the hook run in its own process; anything else runs cold, and a
server that fails after taking a hook never blocks the agent nor runs the hook twice."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

import memesh
from memesh import paths
from memesh.transports.hooks import client, server, wire
from tests.backends import Backend

from .conftest import HookEnv, HookRun, shipped_command
from .helpers import remember

MCP = Path(sys.executable).parent / "memesh-mcp"


def _socket_file(env: HookEnv) -> Path:
    return Path(wire.socket_path(*wire.served(env.env)))


@contextmanager
def memesh_mcp(env: HookEnv) -> Iterator[subprocess.Popen[bytes]]:
    """memesh-mcp as Claude Code keeps it for a session (stdin held open), serving hooks once its socket is up."""
    proc = subprocess.Popen(
        [str(MCP)],
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env=env.env,
        cwd=env.project_dir,
    )
    deadline = time.monotonic() + 60
    while not server._answers(str(_socket_file(env))):  # a stale file from a killed server does not answer
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            raise AssertionError(f"memesh-mcp did not serve hooks: {proc.communicate()[1].decode()[-500:]}")
        time.sleep(0.05)
    try:
        yield proc
    finally:
        if proc.poll() is None:
            assert proc.stdin is not None
            proc.stdin.close()
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


def traced(env: HookEnv, event: str, payload: Any, *, tool: str | None = None) -> tuple[HookRun, bool]:
    """The hook run as the host runs it, and whether it ran warm (the process never imported the runner)."""
    data = json.dumps(payload).encode()
    done = subprocess.run(
        ["sh", "-c", shipped_command(event, tool)],
        input=data,
        capture_output=True,
        env={**env.env, "PYTHONPROFILEIMPORTTIME": "1"},
        cwd=env.project_dir,
        timeout=60,
        check=False,
    )
    stderr = done.stderr.decode()
    assert "memesh.transports.hooks.client" in stderr, stderr[-2000:]
    return HookRun(done.returncode, done.stdout.decode(), ""), "memesh.transports.hooks.runner" not in stderr


def outcomes(env: HookEnv) -> list[tuple[str, str, str | None, str | None]]:
    return [(r["hook"], r["outcome"], r.get("reason"), r.get("entity")) for r in env.outcomes()]


@pytest.fixture
def twins(tmp_path: Path, backend: Backend) -> tuple[HookEnv, HookEnv]:
    """Two MeMesh folders for one project folder, seeded alike: one for hooks run cold, one for hooks run warm."""
    project_dir = tmp_path / "proj"
    project_dir.mkdir()
    made = []
    for name in ("cold", "warm"):
        home = tmp_path / name
        db = home / ".memesh" / "knowledge-graph.db"
        env = {
            "MEMESH_DAEMON": "0",
            "PATH": f"{Path(sys.executable).parent}:{os.environ.get('PATH', '/usr/bin:/bin')}",
            "HOME": str(home),
            "MEMESH_DIR": str(home / ".memesh"),
            "MEMESH_DB_PATH": str(db),
            "CLAUDE_PLUGIN_ROOT": str(Path(__file__).resolve().parents[3]),
            "CLAUDECODE": "1",
            "GIT_CONFIG_NOSYSTEM": "1",
            **backend.environ(db),
        }
        hook_env = HookEnv(home, db, project_dir, env, backend)
        remember(hook_env, "wal-mode", tags=[f"project:{hook_env.project}", "file:store.py"])
        remember(hook_env, "retry-policy", kind="lesson_learned")
        made.append(hook_env)
    return made[0], made[1]


def test_warm_hooks_answer_and_record_what_cold_hooks_do(twins: tuple[HookEnv, HookEnv]) -> None:
    cold, warm = twins
    store_py = str(cold.project_dir / "src" / "store.py")
    reply = "Moved the store to WAL mode and measured the readers; next, the retry policy for the writer. [mem:1]"
    transcript = [{"type": "assistant", "message": {"role": "assistant", "content": [{"type": "text", "text": reply}]}}]
    events: list[tuple[str, str | None, dict[str, Any]]] = [
        ("SessionStart", None, {"session_id": "s1", "cwd": str(cold.project_dir), "source": "startup"}),
        (
            "PreToolUse",
            "Edit",
            {
                "session_id": "s1",
                "cwd": str(cold.project_dir),
                "tool_name": "Edit",
                "tool_input": {"file_path": store_py, "old_string": "a", "new_string": "b"},
            },
        ),
        ("Stop", None, {"session_id": "s1", "cwd": str(cold.project_dir)}),
    ]
    with memesh_mcp(warm):
        for event, tool, payload in events:
            answers = []
            for env in (cold, warm):
                sent = {**payload, "transcript_path": str(env.transcript(transcript))} if event == "Stop" else payload
                run, was_warm = traced(env, event, sent, tool=tool)
                assert run.returncode == 0
                assert was_warm is (env is warm), event
                answers.append(run.stdout)
            assert answers[0] == answers[1], event
            assert answers[0] or event == "Stop"
    assert outcomes(warm) == outcomes(cold)
    assert ("handoff-capture", "wrote") in [(hook, outcome) for hook, outcome, *_ in outcomes(warm)]
    assert not _socket_file(warm).exists()  # the server removed its socket when its session ended


def test_hooks_of_another_database_or_with_the_switch_off_run_cold(hook_env: HookEnv, tmp_path: Path) -> None:
    remember(hook_env, "wal-mode", tags=[f"project:{hook_env.project}", "file:store.py"])
    payload = {"session_id": "s1", "cwd": str(hook_env.project_dir), "source": "startup"}
    other_db = hook_env.with_db(tmp_path / "other.db")
    switched_off = hook_env.with_db(hook_env.db, MEMESH_HOOK_SERVER="0")
    with memesh_mcp(hook_env):
        warm_run, was_warm = traced(hook_env, "SessionStart", payload)
        assert was_warm and "wal-mode" in warm_run.stdout
        other_run, was_warm = traced(other_db, "SessionStart", payload)
        assert not was_warm and other_run.returncode == 0 and "wal-mode" not in other_run.stdout
        off_run, was_warm = traced(switched_off, "SessionStart", payload)
        assert not was_warm and off_run.stdout == warm_run.stdout


def test_a_hook_of_another_engine_under_the_same_file_runs_cold_on_its_own_database(
    hook_env: HookEnv, backend: Backend, pg_url: str
) -> None:
    # MEMESH_DB_PATH names the folder of the local files on either engine, so a hook and a server can share it and
    # still hold different databases: the server on the file and a hook naming a URL, or the other way round. The
    # hook must not run in that server (it used to: both sides named the database by the file alone).
    remember(hook_env, "wal-mode", tags=[f"project:{hook_env.project}", "file:store.py"])
    payload = {"session_id": "s1", "cwd": str(hook_env.project_dir), "source": "startup"}
    env = {name: value for name, value in hook_env.env.items() if name != "MEMESH_DATABASE_URL"}
    if not backend.postgres:
        env["MEMESH_DATABASE_URL"] = pg_url  # the server has the file; this hook names an empty PostgreSQL database
    other = HookEnv(hook_env.home, hook_env.db, hook_env.project_dir, env, backend)
    with memesh_mcp(hook_env):
        warm_run, was_warm = traced(hook_env, "SessionStart", payload)
        assert was_warm and "wal-mode" in warm_run.stdout
        other_run, was_warm = traced(other, "SessionStart", payload)
        assert not was_warm and other_run.returncode == 0 and "wal-mode" not in other_run.stdout


def test_a_server_killed_while_a_hook_waits_leaves_the_hook_to_run_itself(hook_env: HookEnv) -> None:
    remember(hook_env, "wal-mode", tags=[f"project:{hook_env.project}", "file:store.py"])
    payload = {"session_id": "s1", "cwd": str(hook_env.project_dir), "source": "startup"}
    with memesh_mcp(hook_env) as mcp:
        expected = hook_env.run("SessionStart", payload).stdout
        os.kill(mcp.pid, signal.SIGSTOP)  # the kernel still queues connections: the hook waits for an accept
        hook = subprocess.Popen(
            ["sh", "-c", shipped_command("SessionStart")],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            env=hook_env.env,
            cwd=hook_env.project_dir,
        )
        hook.stdin.write(json.dumps(payload).encode())  # type: ignore[union-attr]
        hook.stdin.close()  # type: ignore[union-attr]
        time.sleep(1.0)
        os.kill(mcp.pid, signal.SIGKILL)  # before it accepted: nothing ran there, so the hook runs here
        started = time.monotonic()
        assert hook.wait(timeout=30) == 0
        assert hook.stdout is not None and hook.stdout.read().decode() == expected
        assert time.monotonic() - started < 10
    # The next server replaces the socket the killed one left behind.
    assert _socket_file(hook_env).exists()
    with memesh_mcp(hook_env):
        run, was_warm = traced(hook_env, "SessionStart", payload)
        assert was_warm and run.stdout == expected


def _bind(sock: socket.socket, path: str) -> None:
    """Bind as the server does: a path too long for a socket address (a deep test folder) through its folder's fd."""
    target, fd = wire.address(path)
    try:
        sock.bind(target)
    finally:
        if fd is not None:
            os.close(fd)


@contextmanager
def fake_server(env: HookEnv, behaviour: str) -> Iterator[None]:
    """A server at the hook socket that takes a request and then fails: closes after ACCEPT, or never answers."""
    path = _socket_file(env)
    paths.ensure_private_dir(path.parent)
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    _bind(listener, str(path))
    listener.listen(4)
    held: list[socket.socket] = []

    def serve() -> None:
        try:
            conn, _ = listener.accept()
        except OSError:
            return
        conn.recv(1 << 20)
        if behaviour == "accept-then-die":
            conn.sendall(wire.ACCEPT)
            conn.close()
        else:
            held.append(conn)  # silent: never accepts nor refuses

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield
    finally:
        listener.close()
        for conn in held:
            conn.close()
        path.unlink(missing_ok=True)


@pytest.mark.parametrize(
    ("behaviour", "reason"),
    [
        ("accept-then-die", "the MeMesh server failed while running the hook"),
        ("silent", "the MeMesh server did not accept the hook in time"),
    ],
)
def test_a_server_that_fails_after_taking_the_hook_never_blocks_nor_runs_it_twice(
    hook_env: HookEnv, behaviour: str, reason: str
) -> None:
    remember(hook_env, "wal-mode", tags=[f"project:{hook_env.project}", "file:store.py"])
    payload = {"session_id": "s1", "cwd": str(hook_env.project_dir), "source": "startup"}
    with fake_server(hook_env, behaviour):
        started = time.monotonic()
        run = hook_env.run("SessionStart", payload)
        elapsed = time.monotonic() - started
    assert run.returncode == 0 and run.stdout == ""
    assert elapsed < wire.ACCEPT_TIMEOUT_S + 5
    # Only the error: the hook did not also run here (it would have recorded "notified").
    assert outcomes(hook_env) == [("session-start", "error", reason, None)]


# The server in this process: its refusals, its socket, and who binds it.


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "m"
    monkeypatch.setenv("MEMESH_DIR", str(home))
    monkeypatch.setenv("MEMESH_DB_PATH", str(home / "knowledge-graph.db"))
    monkeypatch.setattr(server, "warm", lambda: None)
    return home


def _wait_bound(hooks: server.HookServer) -> None:
    deadline = time.monotonic() + 10
    while not hooks.bound:
        assert time.monotonic() < deadline
        time.sleep(0.02)


def _started() -> server.HookServer:
    hooks = server.HookServer.for_environment()
    assert hooks is not None
    hooks.start()
    _wait_bound(hooks)
    return hooks


def _request(path: str, **changes: bytes) -> bytes:
    folder, db = wire.served(os.environ)
    fields = {
        "version": memesh.__version__.encode(),
        "event": b"session-start",
        "cwd": b"/",
        "folder": folder.encode(),
        "db": db.encode(),
        "env": b"",
        "stdin": b"{}",
        **changes,
    }
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.settimeout(5)
        target, fd = wire.address(path)
        try:
            sock.connect(target)
        finally:
            if fd is not None:
                os.close(fd)
        # Refused before the request was read (a peer of another user): the answer may still be waiting.
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            sock.sendall(wire.MAGIC + wire.framed(*fields.values()))
        try:
            return sock.recv(1)
        except ConnectionResetError:
            return b""


def test_the_socket_is_owner_only_and_named_by_the_database(folder: Path) -> None:
    hooks = _started()
    try:
        mode = Path(hooks.path).stat().st_mode & 0o777
        assert mode == 0o600
        assert Path(hooks.path).parent == folder.resolve()
        assert Path(hooks.path).name.startswith("hook-") and len(Path(hooks.path).name) == len("hook-.sock") + 16
        assert wire.socket_path(str(folder), "/elsewhere/other.db") != hooks.path
        assert wire.DB_FILENAME == paths.DB_FILENAME
        assert wire.DATABASE_URL_ENV == paths.DATABASE_URL_ENV
    finally:
        hooks.close()
    assert not Path(hooks.path).exists()


def test_another_version_or_database_is_refused_before_anything_runs(
    folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    hooks = _started()
    try:
        assert _request(hooks.path, version=b"0.0.0-other") == wire.REFUSE
        assert _request(hooks.path, db=b"/elsewhere/other.db") == wire.REFUSE
        assert _request(hooks.path, folder=b"/elsewhere") == wire.REFUSE
        assert not (folder / "hook-outcomes.jsonl").exists()  # refused: no hook ran
        # The client takes a refusal as "not taken" and runs the hook itself.
        assert client.delegate("session-start", b"{}") is not None
        monkeypatch.setattr(client, "__version__", "0.0.0-other")
        assert client.delegate("session-start", b"{}") is None
    finally:
        hooks.close()


def test_a_peer_of_another_user_is_refused_both_ways(folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    hooks = _started()
    try:
        left, right = socket.socketpair(socket.AF_UNIX)
        with left, right:
            assert server._peer_uid(left) in (None, os.getuid())
        monkeypatch.setattr(server, "_peer_uid", lambda _sock: os.getuid() + 1)
        assert _request(hooks.path) in (wire.REFUSE, b"")  # refused at once, maybe before reading the request
        assert not (folder / "hook-outcomes.jsonl").exists()  # nothing ran
        assert client.delegate("session-start", b"{}") is None
        monkeypatch.undo()
        if os.getuid() == 0:  # a socket file another user owns is never connected to
            os.chown(hooks.path, 4242, 4242)
            assert client.delegate("session-start", b"{}") is None
    finally:
        hooks.close()


def test_a_stale_socket_is_replaced_and_a_second_server_stands_by(
    folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(server, "STANDBY_RETRY_S", 0.1)
    folder.mkdir(mode=0o700)
    path = wire.socket_path(*wire.served(os.environ))
    stale = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    _bind(stale, path)
    stale.close()  # the file stays, and nothing answers on it: what a killed server leaves
    first = _started()
    second = server.HookServer.for_environment()
    assert second is not None
    second.start()
    try:
        time.sleep(0.5)
        assert first.bound and not second.bound
        assert _request(path) == wire.ACCEPT
        first.close()
        _wait_bound(second)  # the one standing by takes over
        assert _request(path) == wire.ACCEPT
    finally:
        first.close()
        second.close()
    assert not Path(path).exists()


def test_no_server_answers_at_a_long_path_in_a_folder_not_made_yet(tmp_path: Path) -> None:
    """The probe a starting server (and this suite) uses: a socket path too long for an address, in a folder that
    does not exist yet (a MeMesh folder on PostgreSQL before memesh-mcp binds), is no server, not "answers"; the
    same path answers once a server listens there."""
    deep = tmp_path.joinpath(*["d" * 40] * 3) / ".memesh"
    path = str(deep / "hook-0123456789abcdef.sock")
    assert len(os.fsencode(path)) >= wire.SUN_PATH_MAX
    assert not server._answers(path)
    deep.mkdir(parents=True)
    assert not server._answers(path)
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as listener:
        _bind(listener, path)
        listener.listen(1)
        assert server._answers(path)


def test_the_client_and_doctor_name_the_heartbeat_files_alike() -> None:
    from memesh.adapters import hook_outcomes

    assert (wire.HEARTBEATS, wire.BEGAN) == (hook_outcomes.HEARTBEATS, hook_outcomes.BEGAN)
