"""`serve()`: the bind rules and the remote token (in process), and the real granian server (in a subprocess)."""

from __future__ import annotations

import errno
import os
import queue
import re
import signal
import socket
import stat
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from memesh.transports.http import serve as serve_module
from memesh.transports.http.serve import serve

RUNNING = re.compile(r"^MeMesh HTTP server running at http://(?P<host>[^ ]+):(?P<port>\d+)$")
STARTUP_TIMEOUT = 30.0


# -- in process: everything that happens before the socket listens ---------------------------------------------


@pytest.fixture
def no_listen(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, int]]:
    """Replace bind with one that records the call and fails as a busy port would, so serve() returns."""
    calls: list[tuple[str, int]] = []

    def busy(host: str, port: int) -> socket.socket:
        calls.append((host, port))
        raise OSError(errno.EADDRINUSE, "Address already in use")

    monkeypatch.setattr(serve_module, "bind", busy)
    return calls


@pytest.fixture
def clean_env(memesh_env: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """MEMESH_DIR in the test's folder and no remote settings inherited; returns the token file path."""
    monkeypatch.delenv("MEMESH_REMOTE_TOKEN", raising=False)
    monkeypatch.delenv("MEMESH_HTTP_ALLOW_REMOTE", raising=False)
    return Path(os.environ["MEMESH_DIR"]) / "remote-token"


def test_a_remote_bind_without_opt_in_is_refused_before_listening(
    clean_env: Path, no_listen: list[tuple[str, int]], capsys: pytest.CaptureFixture[str]
) -> None:
    assert serve(host="0.0.0.0", port=3737) == 1
    err = capsys.readouterr().err
    assert 'Refusing to bind MeMesh HTTP server to non-loopback host "0.0.0.0"' in err
    assert no_listen == []
    assert not clean_env.exists()


@pytest.mark.parametrize("value", ["1", "true", "YES", "True"])
def test_the_environment_opts_in_to_a_remote_bind(
    clean_env: Path, no_listen: list[tuple[str, int]], monkeypatch: pytest.MonkeyPatch, value: str
) -> None:
    monkeypatch.setenv("MEMESH_HTTP_ALLOW_REMOTE", value)
    serve(host="0.0.0.0", port=3737)
    assert no_listen == [("0.0.0.0", 3737)]


def test_other_environment_values_do_not_opt_in(
    clean_env: Path, no_listen: list[tuple[str, int]], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MEMESH_HTTP_ALLOW_REMOTE", "on")
    assert serve(host="0.0.0.0", port=3737) == 1
    assert no_listen == []


def test_allow_remote_on_loopback_says_it_has_no_effect_and_makes_no_token(
    clean_env: Path, no_listen: list[tuple[str, int]], capsys: pytest.CaptureFixture[str]
) -> None:
    serve(host="127.0.0.1", port=3737, allow_remote=True)
    err = capsys.readouterr().err
    assert '--allow-remote has no effect on loopback host "127.0.0.1"' in err
    assert not clean_env.exists()


def test_the_token_file_exists_with_mode_0600_before_listening(
    clean_env: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    seen: list[str] = []

    def check_then_fail(host: str, port: int) -> socket.socket:
        seen.append(clean_env.read_text())
        assert stat.S_IMODE(clean_env.stat().st_mode) == 0o600
        raise OSError(errno.EADDRINUSE, "Address already in use")

    monkeypatch.setattr(serve_module, "bind", check_then_fail)
    assert serve(host="0.0.0.0", port=3737, allow_remote=True) == 1
    assert re.fullmatch(r"[0-9a-f]{64}\n", seen[0])
    captured = capsys.readouterr()
    assert "bearer token generated for remote access" in captured.err
    assert f"Token file: {clean_env} (mode 600)" in captured.err
    assert seen[0].strip() not in captured.err + captured.out
    assert stat.S_IMODE(clean_env.parent.stat().st_mode) == 0o700


def test_an_existing_token_file_is_reused(
    clean_env: Path, no_listen: list[tuple[str, int]], capsys: pytest.CaptureFixture[str]
) -> None:
    clean_env.parent.mkdir(parents=True)
    clean_env.write_text("an-existing-token-that-is-long\n")
    serve(host="0.0.0.0", port=3737, allow_remote=True)
    err = capsys.readouterr().err
    assert f"Token loaded from {clean_env}." in err
    assert "an-existing-token" not in err
    assert clean_env.read_text() == "an-existing-token-that-is-long\n"


def test_an_existing_token_file_others_can_read_is_brought_back_to_mode_600(
    clean_env: Path, no_listen: list[tuple[str, int]]
) -> None:
    clean_env.parent.mkdir(parents=True)
    clean_env.write_text("an-existing-token-that-is-long\n")
    clean_env.chmod(0o644)
    serve(host="0.0.0.0", port=3737, allow_remote=True)
    assert stat.S_IMODE(clean_env.stat().st_mode) == 0o600


def test_the_environment_opt_in_on_loopback_also_says_it_has_no_effect(
    clean_env: Path,
    no_listen: list[tuple[str, int]],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("MEMESH_HTTP_ALLOW_REMOTE", "true")
    serve(host="127.0.0.1", port=3737)
    assert 'MEMESH_HTTP_ALLOW_REMOTE=true has no effect on loopback host "127.0.0.1"' in capsys.readouterr().err
    assert not clean_env.exists()


@pytest.mark.parametrize("port", [-1, 65536, 70000])
def test_a_port_outside_the_tcp_range_is_refused_before_listening(
    clean_env: Path, no_listen: list[tuple[str, int]], capsys: pytest.CaptureFixture[str], port: int
) -> None:
    assert serve(host="127.0.0.1", port=port) == 1
    assert f"{port} is not a TCP port (0 to 65535)" in capsys.readouterr().err
    assert no_listen == []


def test_a_too_short_token_file_refuses_to_start(
    clean_env: Path, no_listen: list[tuple[str, int]], capsys: pytest.CaptureFixture[str]
) -> None:
    clean_env.parent.mkdir(parents=True)
    clean_env.write_text("short\n")
    assert serve(host="0.0.0.0", port=3737, allow_remote=True) == 1
    assert f"Existing {clean_env} is too short (<16 chars)." in capsys.readouterr().err
    assert no_listen == []


def test_the_token_environment_variable_overrides_the_file(
    clean_env: Path,
    no_listen: list[tuple[str, int]],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("MEMESH_REMOTE_TOKEN", "from-the-environment-0123")
    serve(host="0.0.0.0", port=3737, allow_remote=True)
    err = capsys.readouterr().err
    assert "Token loaded from MEMESH_REMOTE_TOKEN." in err
    assert "from-the-environment" not in err
    assert not clean_env.exists()


def test_a_short_token_environment_variable_is_ignored(
    clean_env: Path,
    no_listen: list[tuple[str, int]],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("MEMESH_REMOTE_TOKEN", "short")
    serve(host="0.0.0.0", port=3737, allow_remote=True)
    assert "bearer token generated" in capsys.readouterr().err
    assert clean_env.exists()


def test_a_busy_port_is_reported_with_what_to_do(clean_env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with socket.create_server(("127.0.0.1", 0)) as taken:
        port = taken.getsockname()[1]
        assert serve(host="127.0.0.1", port=port) == 1
    err = capsys.readouterr().err
    assert f"MeMesh: cannot start — 127.0.0.1:{port} is already in use." in err
    assert "--port <n>" in err


# -- a real server, in a subprocess ------------------------------------------------------------------------------


class Running:
    """A `serve()` subprocess whose stdout is read line by line on a thread."""

    def __init__(self, proc: subprocess.Popen[str]) -> None:
        self.proc = proc
        self.lines: queue.Queue[str | None] = queue.Queue()
        threading.Thread(target=self._pump, daemon=True).start()
        line = self.lines.get(timeout=STARTUP_TIMEOUT)
        assert line is not None, proc.stderr.read() if proc.stderr else ""
        self.first_line = line.rstrip("\n")
        match = RUNNING.match(self.first_line)
        assert match, self.first_line
        self.port = int(match["port"])
        self.url = f"http://127.0.0.1:{self.port}"

    def _pump(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put(line)
        self.lines.put(None)

    def stop(self) -> tuple[int, str]:
        """SIGTERM, then the exit code and everything written to stderr."""
        self.proc.send_signal(signal.SIGTERM)
        _, err = self.proc.communicate(timeout=STARTUP_TIMEOUT)
        return self.proc.returncode, err


@pytest.fixture
def start(tmp_path: Path) -> Iterator[Any]:
    home = tmp_path / "home"
    env = {k: v for k, v in os.environ.items() if k not in ("MEMESH_REMOTE_TOKEN", "MEMESH_HTTP_ALLOW_REMOTE")}
    env.update(HOME=str(home), MEMESH_DIR=str(home / ".memesh"), MEMESH_DB_PATH=str(home / ".memesh" / "kg.db"))
    started: list[subprocess.Popen[str]] = []

    def launch(host: str = "127.0.0.1", allow_remote: bool = False) -> Running:
        code = (
            "import sys\nfrom memesh.transports.http.serve import serve\n"
            f"sys.exit(serve(host={host!r}, port=0, allow_remote={allow_remote!r}))"
        )
        proc = subprocess.Popen(
            [sys.executable, "-c", code],
            cwd=tmp_path,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        started.append(proc)
        return Running(proc)

    yield launch
    for proc in started:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_the_real_server_answers_over_a_socket_and_stops_on_sigterm(start: Any, clean_env: Path) -> None:
    server = start()
    assert server.first_line == f"MeMesh HTTP server running at http://127.0.0.1:{server.port}"
    with httpx.Client(base_url=server.url, timeout=STARTUP_TIMEOUT) as client:
        health = client.get("/v1/health")
        assert health.status_code == 200
        assert health.json()["data"]["status"] == "ok"
        assert health.headers["x-frame-options"] == "DENY"
        stored = client.post("/v1/remember", json={"name": "a/b c", "type": "note", "observations": ["x"]})
        assert stored.status_code == 200
        assert client.get("/v1/entities/a%2Fb%20c").json()["data"]["name"] == "a/b c"
        assert client.get("/v1/health", headers={"Host": "evil.example"}).status_code == 403
        assert client.post("/v1/recall", content=b" " * (1024 * 1024 + 1)).status_code == 413
    # A second server on the same port fails instead of sharing it.
    assert serve(host="127.0.0.1", port=server.port) == 1
    code, err = server.stop()
    assert code == 0, err


def test_the_real_remote_server_requires_the_generated_token(start: Any, tmp_path: Path) -> None:
    server = start(host="0.0.0.0", allow_remote=True)
    token_file = tmp_path / "home" / ".memesh" / "remote-token"
    assert stat.S_IMODE(token_file.stat().st_mode) == 0o600
    token = token_file.read_text().strip()
    with httpx.Client(base_url=server.url, timeout=STARTUP_TIMEOUT) as client:
        assert client.get("/v1/health").json()["errorCode"] == "auth.missing-bearer"
        assert client.get("/v1/health", headers={"Authorization": "Bearer nope-nope-nope"}).status_code == 401
        assert client.get("/v1/health", headers={"Authorization": f"Bearer {token}"}).status_code == 200
    code, err = server.stop()
    assert code == 0, err
    assert "bearer token generated for remote access" in err
    assert token not in err
    assert server.first_line.startswith("MeMesh HTTP server running at http://0.0.0.0:")
