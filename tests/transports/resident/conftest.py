"""The resident server's tests run real processes on real sockets in a home of their own, with the server turned
on (the suite turns it off: tests/isolation.py); every server a test starts is stopped when the test ends."""

from __future__ import annotations

# ruff: noqa: PTH110  (socket paths as the product names them: str)
import json
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from memesh import resident
from memesh.transports.hooks import server as hook_server
from tests.backends import Backend

BIN = Path(sys.executable).parent
MEMESH = BIN / "memesh"
REPO = Path(__file__).resolve().parents[3]


def gone(pid: int) -> bool:
    """Whether process `pid` has ended (a zombie waiting for its parent counts as ended)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return True
    return state in ("Z", "X")


def wait_until(condition: object, within: float = 60.0, what: str = "") -> None:
    deadline = time.monotonic() + within
    while not condition():  # type: ignore[operator]
        if time.monotonic() > deadline:
            raise AssertionError(f"not within {within} s: {what}")
        time.sleep(0.05)


def residents_of(folder: str) -> list[int]:
    """Every resident server process whose MeMesh folder is `folder` (running, starting or about to give up)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            command = (entry / "cmdline").read_bytes().split(b"\0")
            if b"memesh.transports.resident" not in command:
                continue
            environ = (entry / "environ").read_bytes().split(b"\0")
        except OSError:
            continue
        if f"MEMESH_DIR={folder}".encode() in environ and not gone(int(entry.name)):
            found.append(int(entry.name))
    return found


TIME = re.compile(r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:?\d{2})?")


class Home:
    """A home with a MeMesh folder and a project folder, and the `memesh` command run in it."""

    def __init__(self, root: Path, backend: Backend, cwd: Path | None = None, **extra: str) -> None:
        self.root = root
        self.home = root / "home"
        self.cwd = cwd or root / "proj"
        self.cwd.mkdir(parents=True, exist_ok=True)
        self.db = self.home / ".memesh" / "knowledge-graph.db"
        self.imported: list[str] = []  # the modules the last `traced` call imported
        inherited = {k: v for k, v in os.environ.items() if k not in ("MEMESH_DATABASE_URL", "PYTHONPROFILEIMPORTTIME")}
        self.env = {
            **inherited,
            "HOME": str(self.home),
            "MEMESH_DIR": str(self.home / ".memesh"),
            "MEMESH_DB_PATH": str(self.db),
            "MEMESH_DAEMON": "1",
            "MEMESH_DAEMON_IDLE_S": "120",
            **backend.environ(self.db),
            **extra,
        }

    @property
    def folder(self) -> str:
        return resident.served(self.env)[0]

    @property
    def socket(self) -> str:
        return resident.socket_path(*resident.served(self.env))

    def run(
        self, *args: str, env: dict[str, str] | None = None, timeout: float = 120
    ) -> subprocess.CompletedProcess[bytes]:
        return subprocess.run(
            [str(MEMESH), *args],
            env={**self.env, **(env or {})},
            cwd=self.cwd,
            capture_output=True,
            stdin=subprocess.DEVNULL,
            timeout=timeout,
            check=False,
        )

    def cold(self, *args: str) -> subprocess.CompletedProcess[bytes]:
        return self.run(*args, env={"MEMESH_DAEMON": "0"})

    def traced(self, *args: str) -> tuple[subprocess.CompletedProcess[bytes], bool]:
        """`memesh <args>`, and whether the resident server answered it (the process never imported the CLI)."""
        done = self.run(*args, env={"PYTHONPROFILEIMPORTTIME": "1"})
        lines = done.stderr.decode(errors="replace").splitlines()
        imports = [line for line in lines if line.startswith("import time:")]
        assert any("memesh.transports.cli.launch" in line for line in imports), done.stderr[-2000:]
        self.imported = [line.rsplit("|", 1)[1].strip() for line in imports]
        warm = "memesh.transports.cli.app" not in self.imported
        rest = "\n".join(line for line in lines if not line.startswith("import time:"))
        plain = subprocess.CompletedProcess(
            done.args, done.returncode, done.stdout, (rest + "\n").encode() if rest else b""
        )
        return plain, warm

    def pid(self) -> int | None:
        return resident.running_pid(*resident.served(self.env))

    def serving(self) -> bool:
        return self.pid() is not None and os.path.exists(self.socket) and hook_server._answers(self.socket)

    def wait_serving(self, within: float = 90.0) -> int:
        wait_until(self.serving, within, "the resident server to answer")
        pid = self.pid()
        assert pid is not None
        return pid

    def start(self) -> int:
        """A server for this home: a cold call starts it; its pid once it answers."""
        self.run("stats")
        return self.wait_serving()

    def stop(self) -> None:
        """Stop every resident server of this home (SIGTERM, then SIGKILL), and wait for them to end."""
        for pid in residents_of(self.folder):
            try:
                os.kill(pid, signal.SIGTERM)
            except OSError:
                continue
            deadline = time.monotonic() + 15
            while not gone(pid) and time.monotonic() < deadline:
                time.sleep(0.05)
            if not gone(pid):
                os.kill(pid, signal.SIGKILL)

    def outcomes(self) -> list[dict[str, object]]:
        path = self.db.parent / "hook-outcomes.jsonl"
        return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


@pytest.fixture
def home(tmp_path: Path, backend: Backend) -> Iterator[Home]:
    made = Home(tmp_path, backend)
    done = made.cold("remember", "auth tokens rotate weekly", "--tags", "security")
    assert done.returncode == 0, done.stderr
    try:
        yield made
    finally:
        made.stop()
