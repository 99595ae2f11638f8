"""Two real memesh-mcp processes, each the Claude Code host adapter of its own session of principal "reviewer", the
router, the HTTP server and the CLI: a principal message sent from the CLI for one intended session reaches that
session alone; one sent over HTTP to the principal reaches the newest session that finished its handshake."""

from __future__ import annotations

import json
import os
import queue
import re
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from memesh.adapters.router_client import RouterClient
from tests.backends import Backend
from tests.router.test_claude_channel import _project_of

BIN = Path(sys.executable).parent
RUNNING = re.compile(r"running at http://127\.0\.0\.1:(?P<port>\d+)")


@pytest.fixture
def folder() -> Iterator[Path]:
    with tempfile.TemporaryDirectory(prefix="m2", dir="/tmp") as name:
        yield Path(name)


class Session:
    """One memesh-mcp process as Claude Code runs it, its stdout read on a thread."""

    def __init__(self, env: dict[str, str], cwd: Path, session_id: str, client: str) -> None:
        self.proc = subprocess.Popen(
            [str(BIN / "memesh-mcp")],
            env={**env, "CLAUDE_CODE_SESSION_ID": session_id, "MEMESH_RECIPIENT": "reviewer"},
            cwd=cwd,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )
        self.lines: queue.Queue[dict[str, Any]] = queue.Queue()
        threading.Thread(target=self._pump, daemon=True).start()
        self._write(
            {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "initialize",
                "params": {
                    "protocolVersion": "2025-11-25",
                    "capabilities": {},
                    "clientInfo": {"name": client, "version": "1"},
                },
            }
        )
        init = self.lines.get(timeout=60)
        assert "claude/channel" in init["result"]["capabilities"]["experimental"]

    def _pump(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put(json.loads(line))

    def _write(self, message: dict[str, Any]) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(message) + "\n")
        self.proc.stdin.flush()

    def initialized(self) -> None:
        self._write({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def notifications(self) -> list[dict[str, Any]]:
        found = []
        while not self.lines.empty():
            found.append(self.lines.get_nowait())
        return [n for n in found if n.get("method") == "notifications/claude/channel"]

    def stop(self) -> None:
        if self.proc.stdin is not None:
            self.proc.stdin.close()
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def _wait_for(check: Any, what: str) -> None:
    for _ in range(300):
        if check():
            return
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


def _cli_send(env: dict[str, str], project: str, key: str, payload: str, *extra: str) -> Any:
    command = [str(BIN / "memesh"), "message", "send", "--project", project, "--sender", "lead", "--recipient"]
    command += ["reviewer", "--idempotency-key", key, "--payload-stdin", "--json", *extra]
    return subprocess.run(command, input=payload, env=env, capture_output=True, text=True, timeout=60, check=True)


def test_principal_messages_reach_only_the_eligible_live_session(folder: Path, backend: Backend) -> None:
    env = {
        "MEMESH_DAEMON": "0",
        **os.environ,
        "MEMESH_DIR": str(folder),
        "MEMESH_DB_PATH": str(folder / "k.db"),
        "HOME": str(folder),
    }
    env.pop("MEMESH_RECIPIENT", None)
    env.update(backend.environ(folder / "k.db"))
    work = folder / "repo"
    work.mkdir()
    project = _project_of(work)
    socket = folder / "router.sock"
    router = subprocess.Popen([str(BIN / "memesh"), "message", "router"], env=env, stderr=subprocess.PIPE, text=True)
    code = "import sys\nfrom memesh.transports.http.serve import serve\nsys.exit(serve(host='127.0.0.1', port=0))"
    http = subprocess.Popen(
        [sys.executable, "-c", code], cwd=work, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True
    )
    sessions: list[Session] = []
    try:
        assert router.stderr is not None and "listening" in router.stderr.readline()
        assert http.stdout is not None
        match = RUNNING.search(http.stdout.readline())
        assert match, "the HTTP server did not start"
        first = Session(env, work, "cc-A", "claude-code")
        sessions.append(first)
        first.initialized()
        second = Session(env, work, "cc-B", "claude-code-ide")
        sessions.append(second)
        _wait_for(lambda: len(RouterClient(socket).discover(project, 10) or []) == 2, "two registrations")
        # cc-B has not finished its handshake: it is registered, but not eligible for principal messages yet.
        before = _cli_send(env, project, "h0", "first handoff")
        assert json.loads(before.stdout)["host_accept"]["session_id"] == "cc-A"
        second.initialized()
        time.sleep(0.3)  # the activation reaches the router
        for_a = _cli_send(env, project, "h1", "review the auth change", "--intended-session", "cc-A")
        sent_a = json.loads(for_a.stdout)
        assert sent_a["host_accept"]["session_id"] == "cc-A"
        with httpx.Client(base_url=f"http://127.0.0.1:{match['port']}", timeout=60) as client:
            answer = client.post(
                "/v1/message",
                json={
                    "action": "send",
                    "project": project,
                    "sender": "lead",
                    "recipient": "reviewer",
                    "idempotency_key": "h2",
                    "payload": "triage the flaky test",
                },
            ).json()
            sent_b = answer["data"]
            assert sent_b["host_accept"]["session_id"] == "cc-B"  # the newest eligible session
            receipts = client.post(
                "/v1/message",
                json={
                    "action": "receipts",
                    "project": project,
                    "recipient": "reviewer",
                    "message_id": sent_b["message_id"],
                },
            ).json()["data"]["receipts"]
        assert [(r["kind"], r["fact_source"], r["session_id"], r["source_host"]) for r in receipts] == [
            ("host_accept", "host", "cc-B", "claude-code")
        ]
        _wait_for(lambda: not second.lines.empty(), "cc-B's notification")
        time.sleep(0.2)
        got_a = [n["params"]["meta"]["message_id"] for n in first.notifications()]
        got_b = [n["params"]["meta"]["message_id"] for n in second.notifications()]
        assert got_a == [json.loads(before.stdout)["message_id"], sent_a["message_id"]]
        assert got_b == [sent_b["message_id"]]
    finally:
        for session in sessions:
            session.stop()
        for proc in (http, router):
            proc.terminate()
            proc.wait(timeout=30)
