"""Waiting for messages on PostgreSQL: a send's commit notifies, one listening connection per process wakes every
waiting poll and watch of that process, and an idle wait costs the server a read per safety tick, not a poll per
20 ms. Every send here comes from another process (`memesh message send`, as a teammate's agent would)."""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx
import psycopg
import pytest
from mcp import ClientSession, StdioServerParameters, stdio_client
from psycopg.conninfo import conninfo_to_dict

from memesh.app import waiting
from memesh.store.postgres_listen import APPLICATION_NAME, SAFETY_S, Listener
from tests import backends
from tests.transports.http.test_serve import Running

BIN = Path(sys.executable).parent
PROJECT = "team~" + "7" * 32
PROMPT_S = 1.0  # a woken poll answers well inside the safety tick (SAFETY_S), which alone would take up to 2 s


def _env(tmp_path: Path, url: str) -> dict[str, str]:
    home = tmp_path / "home"
    env = {
        k: v
        for k, v in os.environ.items()
        if (not k.startswith("MEMESH_") or k == "MEMESH_DAEMON") or k == "MEMESH_UPDATE_CHECK"
    }
    env.update(HOME=str(home), MEMESH_DIR=str(home / ".memesh"), MEMESH_DATABASE_URL=url)
    return env


def _send(env: dict[str, str], key: str, recipient: str = "reviewer") -> float:
    """One message sent by a `memesh message send` process of its own; when it returned (time.monotonic)."""
    subprocess.run(
        [str(BIN / "memesh"), "message", "send", "--project", PROJECT, "--sender", "author", "--recipient", recipient,
         "--idempotency-key", key, "--payload-stdin"],
        input="please review", env=env, capture_output=True, text=True, check=True, timeout=60,
    )  # fmt: skip
    return time.monotonic()


def _until(condition: Callable[[], bool], timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "the condition did not come true in time"
        time.sleep(0.05)


@pytest.fixture
def db(pg_url: str) -> str:
    """The test's database, its connections named for this test alone: a database a test is given may have been
    another's, and a listener of that test's (an in-process server's, a killed server's worker) reconnects to it
    when the database is emptied for reuse."""
    return f"{pg_url}&application_name=memesh-test-{uuid.uuid4().hex[:12]}"


def _listeners(url: str) -> list[int]:
    """The backends LISTENing for this database's events under the URL's application_name (their pids)."""
    name = conninfo_to_dict(url).get("application_name", APPLICATION_NAME)
    with psycopg.connect(url, autocommit=True) as conn:
        rows = conn.execute(
            "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND application_name = %s "
            "AND query LIKE 'LISTEN%%'",
            (name,),
        ).fetchall()
    return [int(row[0]) for row in rows]


@pytest.fixture
def quiet_listener(db: str) -> Iterator[Listener]:
    """A listener whose safety tick is a minute away: whatever wakes it sooner is a notification."""
    listener = Listener(db, safety_s=60)
    assert listener.connected.wait(20)
    yield listener
    listener.stop()


def _woken(listener: Listener) -> threading.Event:
    woken = threading.Event()
    listener.subscribe(woken.set)
    return woken


def test_a_send_from_another_process_wakes_the_listener_without_its_safety_tick(
    quiet_listener: Listener, db: str, tmp_path: Path
) -> None:
    before = quiet_listener.generation
    woken = _woken(quiet_listener)
    _send(_env(tmp_path, db), "k1")
    assert woken.wait(10)
    assert quiet_listener.generation > before


def test_the_listener_reconnects_after_its_backend_is_terminated_and_hears_the_next_send(
    quiet_listener: Listener, db: str, tmp_path: Path
) -> None:
    [first] = _listeners(db)
    with psycopg.connect(db, autocommit=True) as conn:
        conn.execute("SELECT pg_terminate_backend(%s)", (first,))
    _until(lambda: len(pids := _listeners(db)) == 1 and pids[0] != first)
    _until(quiet_listener.connected.is_set)
    woken = _woken(quiet_listener)
    _send(_env(tmp_path, db), "after-terminate")
    assert woken.wait(10)


class Watch:
    """A `memesh message watch` process: its JSONL lines, read on a thread."""

    def __init__(self, env: dict[str, str], wait_ms: int) -> None:
        self.proc = subprocess.Popen(
            [str(BIN / "memesh"), "message", "watch", "--project", PROJECT, "--recipient", "reviewer",
             "--wait-ms", str(wait_ms)],
            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )  # fmt: skip
        self.lines: queue.Queue[tuple[float, dict[str, Any]]] = queue.Queue()
        threading.Thread(target=self._pump, daemon=True).start()

    def _pump(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put((time.monotonic(), json.loads(line)))

    def next(self) -> tuple[float, dict[str, Any]]:
        return self.lines.get(timeout=60)

    def close(self) -> None:
        self.proc.kill()
        self.proc.wait()


@pytest.fixture
def watch(db: str, tmp_path: Path) -> Iterator[Watch]:
    """A watch waiting up to 30 s, ready and listening."""
    running = Watch(_env(tmp_path, db), 30_000)
    try:
        assert running.next()[1] == {"type": "ready"}
        _until(lambda: len(_listeners(db)) == 1)
        yield running
    finally:
        running.close()


def test_a_watch_process_is_woken_promptly_by_a_send_from_another_process(
    watch: Watch, db: str, tmp_path: Path
) -> None:
    sent = _send(_env(tmp_path, db), "k1")
    answered, line = watch.next()
    assert line["type"] == "events" and len(line["events"]) == 1
    assert answered - sent < PROMPT_S


@pytest.fixture(scope="module")
def counted_url() -> Iterator[str]:
    """A database on a cluster of its own that counts every statement as it runs (pg_stat_statements): the
    statistics of pg_stat_database reach it from an idle backend up to 10 s late."""
    bindir = backends.server_programs()
    counted = backends._pg_cluster().Cluster(
        bindir, template=False, settings=["shared_preload_libraries=pg_stat_statements"]
    )
    try:
        url = counted.new_database(migrated=False)
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute("CREATE EXTENSION pg_stat_statements")
        yield url
    finally:
        counted.stop()


def _settled(url: str) -> bool:
    """Whether a watch's first poll is over: it read the newest event id after its listener began to LISTEN."""
    with psycopg.connect(url, autocommit=True) as conn:
        row = conn.execute(
            "SELECT EXISTS (SELECT 1 FROM pg_stat_activity m JOIN pg_stat_activity l ON l.datname = m.datname "
            "WHERE m.datname = current_database() AND l.application_name = %s AND l.query LIKE 'LISTEN%%' "
            "AND m.application_name = 'memesh' AND m.state = 'idle' AND m.query LIKE 'SELECT COALESCE(MAX(id)%%' "
            "AND m.query_start > l.query_start)",
            (APPLICATION_NAME,),
        ).fetchone()
    return bool(row and row[0])


def _statements(conn: psycopg.Connection[tuple[Any, ...]]) -> int:
    """Statements run in this database since the last reset, the counting's own left out."""
    row = conn.execute(
        "SELECT COALESCE(sum(calls), 0) FROM pg_stat_statements WHERE dbid = "
        "(SELECT oid FROM pg_database WHERE datname = current_database()) AND query NOT LIKE '%pg_stat_statements%'"
    ).fetchone()
    assert row is not None
    return int(row[0])


def test_an_idle_watch_reads_once_per_safety_tick(counted_url: str, tmp_path: Path) -> None:
    running = Watch(_env(tmp_path, counted_url), 30_000)
    try:
        assert running.next()[1] == {"type": "ready"}
        _until(lambda: _settled(counted_url))
        seconds = 3 * SAFETY_S
        with psycopg.connect(counted_url, autocommit=True) as conn:
            conn.execute("SELECT pg_stat_statements_reset()")
            time.sleep(seconds)  # the measurement is of an idle stretch: nothing to wait for
            made = _statements(conn)
        assert running.proc.poll() is None
    finally:
        running.close()
    # One read of the newest event id per safety tick, a tick at either end of the stretch included, and room for a
    # late first look on a loaded machine (it failed once at load 10 with the exact bound); the 20 ms poll it replaces
    # made ~265 in the same time.
    assert made <= seconds / SAFETY_S + 4


class Serve:
    """`memesh serve` on a port of its own, on the test's database."""

    def __init__(self, env: dict[str, str]) -> None:
        self.proc = subprocess.Popen(
            [str(BIN / "memesh"), "serve", "--port", "0"],
            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )  # fmt: skip
        self.url = Running(self.proc).url

    def waiting_poll(self) -> queue.Queue[tuple[float, Any]]:
        """A poll waiting up to 30 s, on a thread; its answer (and when it came) arrives on the queue."""
        answer: queue.Queue[tuple[float, Any]] = queue.Queue()

        def poll() -> None:
            body = {"action": "poll", "project": PROJECT, "recipient": "reviewer", "wait_ms": 30_000}
            response = httpx.post(f"{self.url}/v1/message", json=body, timeout=60)
            answer.put((time.monotonic(), response.json()))

        threading.Thread(target=poll, daemon=True).start()
        return answer


@pytest.fixture
def serve(db: str, tmp_path: Path) -> Iterator[Serve]:
    running = Serve(_env(tmp_path, db))
    try:
        yield running
    finally:
        running.proc.kill()
        running.proc.wait()


def test_a_waiting_http_poll_is_woken_by_a_send_from_another_process(serve: Serve, db: str, tmp_path: Path) -> None:
    answer = serve.waiting_poll()
    _until(lambda: len(_listeners(db)) == 1)
    sent = _send(_env(tmp_path, db), "k1")
    answered, body = answer.get(timeout=60)
    assert body["success"] is True and len(body["data"]["events"]) == 1
    assert answered - sent < PROMPT_S


def test_a_server_whose_listening_backend_is_terminated_still_wakes_its_waiting_polls(
    serve: Serve, db: str, tmp_path: Path
) -> None:
    serve.waiting_poll()  # the first waiting poll starts the process's listener
    _until(lambda: len(_listeners(db)) == 1)
    [first] = _listeners(db)
    with psycopg.connect(db, autocommit=True) as conn:
        conn.execute("SELECT pg_terminate_backend(%s)", (first,))
    _until(lambda: len(pids := _listeners(db)) == 1 and pids[0] != first)
    answer = serve.waiting_poll()
    sent = _send(_env(tmp_path, db), "after-terminate")
    answered, body = answer.get(timeout=60)
    assert body["success"] is True and len(body["data"]["events"]) == 1
    assert answered - sent < PROMPT_S


def test_a_waiting_mcp_poll_over_stdio_is_woken_by_a_send_from_another_process(db: str, tmp_path: Path) -> None:
    env = _env(tmp_path, db)

    async def go() -> tuple[float, float, Any]:
        params = StdioServerParameters(command=str(BIN / "memesh-mcp"), env=env, cwd=str(tmp_path))
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            sent: list[float] = []

            async def send_once_listening() -> None:
                await anyio.to_thread.run_sync(lambda: _until(lambda: len(_listeners(db)) == 1))
                sent.append(await anyio.to_thread.run_sync(_send, env, "k1"))

            async with anyio.create_task_group() as group:
                group.start_soon(send_once_listening)
                arguments = {"action": "poll", "project": PROJECT, "recipient": "reviewer", "wait_ms": 30_000}
                result = await session.call_tool("message", arguments)
                answered = time.monotonic()
            return sent[0], answered, result.structured_content

    sent, answered, out = anyio.run(go)
    assert out is not None and len(out["events"]) == 1
    assert answered - sent < PROMPT_S


# --- which wakeups a process uses, and how waiters share them (no database needed) --------------------------------


def test_behind_a_transaction_pooler_the_wakeups_are_a_modest_shared_tick(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEMESH_DATABASE_POOLER", "transaction")
    found = waiting.wakeups_for("postgresql://nobody@/nowhere")
    assert isinstance(found, waiting.Ticks) and found.interval_s == waiting.POOLED_INTERVAL_S


def test_a_sqlite_file_keeps_its_tick(tmp_path: Path) -> None:
    found = waiting.wakeups_for(tmp_path / "kg.db")
    assert isinstance(found, waiting.Ticks) and found.interval_s == waiting.CHECK_INTERVAL_S


class Bell:
    """Wakeups a test rings by hand."""

    def __init__(self) -> None:
        self.generation = 0
        self._callbacks: list[Callable[[], None]] = []

    def subscribe(self, callback: Callable[[], None]) -> Callable[[], None]:
        self._callbacks.append(callback)
        return lambda: self._callbacks.remove(callback)

    def longest_sleep(self) -> float:
        return 60.0

    def ring(self) -> None:
        self.generation += 1
        for callback in list(self._callbacks):
            callback()


def test_many_waiting_polls_share_one_read_per_wakeup() -> None:
    bell = Bell()
    newest = [0]
    reads: list[int] = []

    def read() -> int:
        reads.append(newest[0])
        return newest[0]

    high_water = waiting.HighWater(read, lambda: bell)
    woken: list[int] = []

    async def go() -> None:
        async def wait() -> None:
            woken.append(await high_water.past(0, time.monotonic() + 30))

        with anyio.fail_after(10):
            async with anyio.create_task_group() as group:
                for _ in range(50):
                    group.start_soon(wait)
                while len(bell._callbacks) < 50:  # every waiter asleep on the bell
                    await anyio.sleep(0.01)
                bell.ring()  # a wakeup with nothing new: one read, and back to sleep
                while len(reads) < 2:
                    await anyio.sleep(0.01)
                newest[0] = 7
                bell.ring()

    anyio.run(go)
    assert woken == [7] * 50
    assert reads == [0, 0, 7]
