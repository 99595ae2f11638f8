"""Nothing lost: eight processes sending at once over MCP, HTTP and the CLI, a SIGKILL in the middle of sends,
and messages read back after the processes that wrote them are gone."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from memesh.app.resources import local_router
from memesh.context import CallContext
from tests.backends import Backend
from tests.calls import call

WRITER = Path(__file__).with_name("writer.py")
PROJECT = "demo~" + "4" * 32
RUNNING = re.compile(r"running at (http://127\.0\.0\.1:\d+)")


@pytest.fixture
def http_url(tmp_path: Path, backend: Backend, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    db = tmp_path / "memesh" / "k.db"
    db.parent.mkdir(exist_ok=True)  # MEMESH_DB_PATH's folder must exist for writers without MEMESH_DIR
    backend.use(monkeypatch, db)  # the server and every writer share the test's database: the file or PostgreSQL
    env = {**os.environ, "MEMESH_DB_PATH": str(db), "MEMESH_DIR": str(tmp_path / "memesh")}
    code = "import sys\nfrom memesh.transports.http.serve import serve\nsys.exit(serve(host='127.0.0.1', port=0))"
    proc = subprocess.Popen([sys.executable, "-c", code], env=env, cwd=tmp_path, stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        match = RUNNING.search(proc.stdout.readline())
        assert match
        yield match[1]
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=30)


def _inbox(backend: Backend, db: Path) -> list[tuple[str, int]]:
    store = backend.open(db)
    try:
        rows = store.conn.execute(
            "SELECT m.idempotency_key, (SELECT COUNT(*) FROM agent_deliveries d WHERE d.message_id = m.message_id) "
            "+ (SELECT COUNT(*) FROM agent_message_events e WHERE e.message_id = m.message_id) "
            "FROM agent_messages m"
        ).fetchall()
        check = store.integrity() if backend.postgres else store.conn.execute("PRAGMA integrity_check").fetchone()[0]
        assert check == "ok"
    finally:
        store.close()
    return [(str(key), int(n)) for key, n in rows]


def test_eight_processes_over_mcp_http_and_cli_lose_and_duplicate_nothing(
    tmp_path: Path, http_url: str, backend: Backend
) -> None:
    db = tmp_path / "memesh" / "k.db"
    db.parent.mkdir(exist_ok=True)  # MEMESH_DB_PATH's folder must exist for writers without MEMESH_DIR
    plan = [("mcp", 12)] * 3 + [("http", 12)] * 3 + [("cli", 4)] * 2
    procs = [
        subprocess.Popen(
            [sys.executable, str(WRITER), mode, str(db), str(count), f"{mode}{n}", http_url],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for n, (mode, count) in enumerate(plan)
    ]
    answers: dict[str, set[str]] = {}
    for proc in procs:
        out, err = proc.communicate(timeout=300)
        assert proc.returncode == 0, err
        for line in out.splitlines():
            key, first, retry = line.split()
            assert first == retry  # the retry returned the same message
            answers.setdefault(key, set()).add(first)
    expected = sum(count for _, count in plan)
    assert len(answers) == expected and all(len(ids) == 1 for ids in answers.values())
    stored = _inbox(backend, db)
    assert sorted(key for key, _ in stored) == sorted(answers)  # nothing lost, nothing twice
    assert all(n == 2 for _, n in stored)  # each message has its one delivery and its one event


def test_a_sigkill_mid_send_leaves_whole_messages_only_and_they_survive_the_restart(
    tmp_path: Path, backend: Backend, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = tmp_path / "memesh" / "k.db"
    db.parent.mkdir(exist_ok=True)  # MEMESH_DB_PATH's folder must exist for writers without MEMESH_DIR
    backend.use(monkeypatch, db)
    proc = subprocess.Popen(
        [sys.executable, str(WRITER), "direct", str(db), "100000", "kill"], stdout=subprocess.PIPE, text=True
    )
    assert proc.stdout is not None
    acknowledged = [proc.stdout.readline().split()[1] for _ in range(20)]
    time.sleep(0.3)  # well inside the stream of sends
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=30)
    stored = _inbox(backend, db)
    assert len(stored) >= 20
    assert all(n == 2 for _, n in stored)  # never a message without its delivery and event
    store = backend.open(db)
    try:
        ctx = CallContext(source_host="test", agent_view=False, router=local_router)
        for message_id in acknowledged:  # what a send had answered is there after the writer died
            fetched = call(
                "message",
                store,
                {"action": "fetch", "project": PROJECT, "recipient": "inbox", "message_id": message_id},
                ctx,
            ).unwrap()
            assert fetched["payload"].startswith("work item kill-")
    finally:
        store.close()
