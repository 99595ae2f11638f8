"""What waiting for messages costs a team's PostgreSQL server, and how soon a waiting watch wakes.

1. Idle cost: one `memesh message watch --wait-ms 30000` waiting with nothing arriving, for `--seconds`: statements
   per second it makes the server run (pg_stat_statements, counted as they run) and transactions committed in the
   database (pg_stat_database.xact_commit, read after the watch has exited so that every backend has reported).
2. Idle cost of a server: `--polls` message polls waiting in one `memesh serve` (over HTTP, each for another
   recipient), statements per second on the server while nothing arrives: what twenty waiting agents cost.
3. Wake latency: a watch waiting, then a send through dispatch on a connection of this process; the time from the
   send's answer to the watch's `events` line, `--wakes` times (median and worst).

`--memesh` picks the CLI to measure (this install's by default; another checkout's `.venv/bin/memesh` gives the
figures before a change). The server is a throwaway cluster (tools/pg_cluster.py) with pg_stat_statements loaded.
Figures only, never assertions.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from _common import call, emit_json, machine_line, median, ms

from memesh.app.resources import local_router
from memesh.context import CallContext
from memesh.store.postgres import open_postgres

PROJECT = "bench~" + "9" * 32
REPORTED_S = 11.0
SETTLE_S = 3.0  # the watch's start (open, first poll, listener) is over by then on a busy 2-core machine


def _cluster() -> Any:
    path = Path(__file__).resolve().parent.parent / "tools" / "pg_cluster.py"
    spec = importlib.util.spec_from_file_location("memesh_pg_cluster", path)
    assert spec is not None and spec.loader is not None
    tools = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tools)
    bindir = tools.binaries()
    if bindir is None:
        raise SystemExit("PostgreSQL is not installed: apt-get install -y postgresql")
    return tools.Cluster(bindir, template=False, settings=["shared_preload_libraries=pg_stat_statements"])


class Watch:
    def __init__(self, memesh: str, env: dict[str, str], recipient: str) -> None:
        self.proc = subprocess.Popen(
            [memesh, "message", "watch", "--project", PROJECT, "--recipient", recipient, "--wait-ms", "30000"],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )
        assert self.proc.stdout is not None
        assert json.loads(self.proc.stdout.readline()) == {"type": "ready"}
        self.events_at: float | None = None
        self._thread = threading.Thread(target=self._read, daemon=True)
        self._thread.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        if line and json.loads(line).get("type") == "events":
            self.events_at = time.monotonic()
        elif line:
            print(f"the watch answered: {line.strip()}", file=sys.stderr)

    def done(self, timeout: float) -> float | None:
        self._thread.join(timeout)
        return self.events_at

    def stop(self) -> None:
        self.proc.kill()
        self.proc.wait()


def _one(conn: Any, sql: str) -> int:
    row = conn.execute(sql).fetchone()
    return int(row[0])


def idle_cost(memesh: str, env: dict[str, str], url: str, seconds: float) -> dict[str, float]:
    import psycopg

    commits = "SELECT xact_commit FROM pg_stat_database WHERE datname = current_database()"
    statements = (
        "SELECT COALESCE(sum(calls), 0) FROM pg_stat_statements WHERE dbid = (SELECT oid FROM pg_database "
        "WHERE datname = current_database()) AND query NOT LIKE '%pg_stat%'"
    )
    watch = Watch(memesh, env, "idle")
    time.sleep(SETTLE_S)
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("SELECT pg_stat_statements_reset()")
        # An idle backend reports its statistics up to 10 s late (PGSTAT_IDLE_INTERVAL): the start's all in first.
        time.sleep(REPORTED_S)
        first = _one(conn, commits)
        time.sleep(seconds)
        ran = _one(conn, statements)
        watch.stop()  # an exiting backend reports what it has not yet
        time.sleep(1.0)
        made = _one(conn, commits) - first - 2  # less this connection's own two reads of the count
    return {"statements_per_s": ran / (seconds + REPORTED_S), "transactions_per_s": made / seconds}


def serve_idle_cost(memesh: str, env: dict[str, str], url: str, polls: int, seconds: float) -> float:
    """Statements per second on the server while `polls` HTTP polls wait in one `memesh serve`."""
    import re

    import httpx
    import psycopg

    proc = subprocess.Popen(
        [memesh, "serve", "--port", "0"], env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True
    )
    try:
        assert proc.stdout is not None
        found = re.search(r"running at (http://\S+)", proc.stdout.readline())
        assert found is not None
        base = found[1]

        def wait(n: int) -> None:
            body = {"action": "poll", "project": PROJECT, "recipient": f"w{n}", "wait_ms": 30_000}
            with contextlib.suppress(httpx.HTTPError):
                httpx.post(f"{base}/v1/message", json=body, timeout=60)

        statements = (
            "SELECT COALESCE(sum(calls), 0) FROM pg_stat_statements WHERE dbid = (SELECT oid FROM pg_database "
            "WHERE datname = current_database()) AND query NOT LIKE '%pg_stat%'"
        )
        cursors = (
            "SELECT COALESCE(sum(calls), 0) FROM pg_stat_statements "
            "WHERE query LIKE 'INSERT INTO agent_message_cursors%'"
        )
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute("SELECT pg_stat_statements_reset()")
            for n in range(polls):
                threading.Thread(target=wait, args=(n,), daemon=True).start()
            # Every poll's first look (a connection per worker thread, the poll's cursor) over before the idle stretch.
            deadline = time.monotonic() + 60
            while _one(conn, cursors) < polls and time.monotonic() < deadline:
                time.sleep(0.2)
            time.sleep(1.0)
            conn.execute("SELECT pg_stat_statements_reset()")
            time.sleep(seconds)
            ran = _one(conn, statements)
    finally:
        proc.kill()
        proc.wait()
    return ran / seconds


def wake_latency(memesh: str, env: dict[str, str], url: str, wakes: int) -> list[float]:
    store = open_postgres(url)
    ctx = CallContext(source_host="bench", agent_view=False, router=local_router)
    found: list[float] = []
    try:
        for n in range(wakes):
            watch = Watch(memesh, env, f"r{n}")
            time.sleep(SETTLE_S)
            call(
                "message",
                store,
                {"action": "send", "project": PROJECT, "sender": "bench", "recipient": f"r{n}",
                 "idempotency_key": f"k{n}", "payload": "wake up"},
                ctx,
            ).unwrap()  # fmt: skip
            sent = time.monotonic()
            answered = watch.done(35)
            watch.stop()
            if answered is not None:
                found.append(answered - sent)
    finally:
        store.close()
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--memesh", default=str(Path(sys.executable).parent / "memesh"), help="the CLI to measure")
    parser.add_argument("--seconds", type=float, default=10.0, help="the idle stretch measured")
    parser.add_argument("--wakes", type=int, default=10, help="sends to time")
    parser.add_argument("--polls", type=int, default=20, help="polls waiting in one memesh serve")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    cluster = _cluster()
    try:
        url = cluster.new_database(migrated=False)
        open_postgres(url).close()  # migrated once, before anything is timed
        import psycopg

        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute("CREATE EXTENSION pg_stat_statements")
        home = Path(tempfile.mkdtemp(prefix="memesh-bench-wait-"))
        env = {k: v for k, v in os.environ.items() if not k.startswith("MEMESH_")}
        env.update(HOME=str(home), MEMESH_DIR=str(home / ".memesh"), MEMESH_DATABASE_URL=url, MEMESH_UPDATE_CHECK="0")
        idle = idle_cost(args.memesh, env, url, args.seconds)
        served = serve_idle_cost(args.memesh, env, url, args.polls, args.seconds)
        latencies = wake_latency(args.memesh, env, url, args.wakes)
    finally:
        cluster.stop()
    summary = {
        "memesh": args.memesh,
        "idle_seconds": args.seconds,
        "idle_statements_per_s": round(idle["statements_per_s"], 2),
        "idle_transactions_per_s": round(idle["transactions_per_s"], 2),
        "serve_polls": args.polls,
        "serve_idle_statements_per_s": round(served, 2),
        "wakes": len(latencies),
        "wake_ms_median": round(ms(median(latencies)), 1) if latencies else None,
        "wake_ms_worst": round(ms(max(latencies)), 1) if latencies else None,
    }
    if args.json:
        emit_json({"summary": summary})
        return 0
    print(machine_line())
    print(f"CLI measured: {args.memesh}")
    print(
        f"idle watch, {args.seconds:g} s: {summary['idle_statements_per_s']} statements/s, "
        f"{summary['idle_transactions_per_s']} transactions/s"
    )
    print(
        f"{args.polls} polls waiting in one memesh serve, {args.seconds:g} s: "
        f"{summary['serve_idle_statements_per_s']} statements/s"
    )
    print(
        f"wake latency over {len(latencies)} sends: median {summary['wake_ms_median']} ms, "
        f"worst {summary['wake_ms_worst']} ms"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
