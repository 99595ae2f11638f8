"""MeMesh behind PgBouncer in transaction mode: calls, successes and failures by kind, with and without the setting.

A throwaway cluster (tools/pg_cluster.py) and a PgBouncer in front of it (tools/pgbouncer.py: pool_mode=transaction,
a pool of `--pool` server connections, so clients really share them). For each mode, a fresh database and
`--processes` processes of `--threads` threads, each thread with a store of its own (as each of serve's threads has),
calling remember and recall in turn `--calls` times through the one door (memesh.app.dispatch.call):

- session: what MeMesh did before issue 39 (MEMESH_DATABASE_POOLER=session: prepared statements and session
  settings), the failure the issue measured (447 of 522 calls);
- transaction: MEMESH_DATABASE_POOLER=transaction;
- detected: the variable unset, PgBouncer told at connect;
- direct: no pooler (the cluster's socket), for the latency beside it.

Failures are counted by SQLSTATE where the message carries one (26000 prepared statement missing, 42P05 prepared
statement already there, 25P02 inside an aborted transaction), else by the store's kind (`data.store`).

    python benchmarks/pg_pooler.py [--processes 4] [--threads 2] [--calls 40] [--pool 2] [--json]

PSYCOPG_IMPL=python in the environment runs psycopg's pure-Python waiting: with its binary one, a thread of a
process waiting for the write lock could hold the GIL until lock_timeout before issue 39's lifecycle change.
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import importlib.util
import json
import os
import re
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

from _common import Tools, emit_json, machine, machine_line, ms, percentile

MODES = ("session", "transaction", "detected", "direct")
POOLER_STATES = ("26000", "42P05", "25P02")
TOOLS = Path(__file__).resolve().parent.parent / "tools"


def _tool(name: str) -> Any:
    spec = importlib.util.spec_from_file_location(f"memesh_{name}", TOOLS / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _kind(error: Any) -> str:
    """A failure's SQLSTATE when its message carries one, else the store's kind of failure, else its code."""
    found = re.search(r"\b(?=[0-9A-Z]*[0-9])([0-9A-Z]{5})\b", error.message)
    if found:
        return found.group(1)
    store = (error.data or {}).get("store")
    return f"store:{store}" if store else str(error.code)


_PRINTING = threading.Lock()


def _report(tool: str, kind: str | None, seconds: float) -> None:
    """One call's outcome as a JSON line at once: a process that hangs still tells what it did before."""
    with _PRINTING:
        print(json.dumps([tool, kind, seconds]), flush=True)


def _thread(url: str, worker: int, thread: int, calls: int) -> None:
    from returns.result import Failure

    from memesh.app import dispatch
    from memesh.app.resources import Resources
    from memesh.context import CallContext
    from memesh.store.errors import StoreError
    from memesh.store.postgres import open_postgres

    ctx = CallContext(source_host=f"bench-{worker}-{thread}", agent_view=True)
    try:
        store = open_postgres(url)
    except StoreError as exc:
        for _ in range(calls):
            _report("open", _kind(exc.error), 0.0)
        return
    resources = Resources.over(store)
    try:
        for index in range(calls):
            if index % 2 == 0:
                tool = "remember"
                request: dict[str, Any] = {
                    "name": f"w{worker}-t{thread}-m{index}",
                    "type": "note",
                    "observations": [f"pooled benchmark memory {index} from worker {worker}"],
                }
            else:
                tool, request = "recall", {"query": "pooled benchmark memory", "limit": 10}
            started = time.perf_counter()
            try:
                result = dispatch.call(tool, resources, request, ctx)
                failed = _kind(result.failure()) if isinstance(result, Failure) else None
            except Exception as exc:  # a failure no transport would answer with: counted, not fatal here
                failed = f"raised:{type(exc).__name__}"
            _report(tool, failed, time.perf_counter() - started)
    finally:
        with contextlib.suppress(Exception):  # a connection the pooler dropped: nothing left to close
            store.close()


def worker(url: str, index: int, threads: int, calls: int) -> None:
    """One process: `threads` threads, each with a store, printing every call's outcome as a JSON line."""
    running = [threading.Thread(target=_thread, args=(url, index, n, calls)) for n in range(threads)]
    for thread in running:
        thread.start()
    for thread in running:
        thread.join()


def _run_mode(url: str, mode: str, args: argparse.Namespace) -> dict[str, Any]:
    env = {key: value for key, value in os.environ.items() if key != "MEMESH_DATABASE_POOLER"}
    if mode in ("session", "transaction"):
        env["MEMESH_DATABASE_POOLER"] = mode
    started = time.perf_counter()
    processes = [
        subprocess.Popen(
            [sys.executable, __file__, "--worker", url, str(index), str(args.threads), str(args.calls)],
            env=env,
            stdout=subprocess.PIPE,
            text=True,
        )
        for index in range(args.processes)
    ]
    outcomes: list[tuple[str, str | None, float]] = []
    deadline = started + args.deadline
    for process in processes:
        try:
            out, _ = process.communicate(timeout=max(1.0, deadline - time.perf_counter()))
        except subprocess.TimeoutExpired:  # threads waiting on each other for good: the calls never answered
            process.kill()
            out, _ = process.communicate()
        answered = [json.loads(line) for line in out.splitlines() if line.startswith("[")]
        outcomes.extend((tool, kind, seconds) for tool, kind, seconds in answered)
        unanswered = args.threads * args.calls - len(answered)
        outcomes.extend(("unanswered", f"no answer in {args.deadline:g} s", 0.0) for _ in range(unanswered))
    wall = time.perf_counter() - started
    kinds = collections.Counter(kind for _, kind, _ in outcomes if kind is not None)
    timed = [(tool, seconds) for tool, kind, seconds in outcomes if kind is None]
    return {
        "mode": mode,
        "calls": len(outcomes),
        "succeeded": sum(1 for _, kind, _ in outcomes if kind is None),
        "failed": sum(kinds.values()),
        "failed_by_kind": dict(kinds.most_common()),
        "wall_s": round(wall, 2),
        "p50_ms": {tool: ms(percentile([s for t, s in timed if t == tool], 0.5)) for tool in ("remember", "recall")},
    }


def _terminate_others(url: str) -> None:
    """Every other backend of this database closed: the pool's server connections start again with its settings."""
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
            "WHERE datname = current_database() AND pid <> pg_backend_pid()"
        )


def latency(cluster: Any, bouncer: Any, count: int, samples: int) -> dict[str, dict[str, float]]:
    """Recall p50 (ms) per scale.py case at `count` memories: direct (the session's own settings, prepared
    statements), and pooled with the database's jit (the server's default, on) and with `ALTER DATABASE … SET jit =
    off` — what a pooled read runs with, since it sets nothing for its session."""
    import psycopg
    from pg_vs_sqlite import corpus_after, load
    from scale import recall_cases

    from memesh.store.postgres import open_postgres

    direct = cluster.new_database()
    store = open_postgres(direct)
    print(f"loading {count} memories: {load(store, corpus_after(7, 0), count):.0f} s", file=sys.stderr, flush=True)
    store.close()
    with psycopg.connect(direct, autocommit=True) as conn:
        conn.execute("VACUUM ANALYZE")
    figures: dict[str, dict[str, float]] = {}
    # Pooled with jit on twice, before and after off: on a shared machine, how far one run's figures drift.
    for label, url, jit in (("direct", direct, None), ("pooled, jit on", bouncer.url(direct), None),
                            ("pooled, jit off", bouncer.url(direct), "off"),
                            ("pooled, jit on again", bouncer.url(direct), "on")):  # fmt: skip
        if jit is not None:
            with psycopg.connect(direct, autocommit=True) as conn:
                alter = f"format('ALTER DATABASE %I SET jit = {jit}', current_database())"
                conn.execute(f"DO $$ BEGIN EXECUTE {alter}; END $$")
            _terminate_others(direct)
        store = open_postgres(url)
        tools = Tools(store, agent_view=True)
        cases = recall_cases(corpus_after(7, count))
        figures[label] = {}
        for case, arguments in cases.items():
            for _ in range(3):  # warm: the pages and, direct, the prepared statements
                tools("recall", arguments())
            times = []
            for _ in range(samples):
                started = time.perf_counter()
                tools("recall", arguments())
                times.append(time.perf_counter() - started)
            figures[label][case] = ms(percentile(times, 0.5))
        store.close()
    return figures


def main() -> int:
    if len(sys.argv) > 1 and sys.argv[1] == "--worker":
        worker(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]))
        return 0
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--processes", type=int, default=4)
    parser.add_argument("--threads", type=int, default=2, help="per process, each with a store of its own")
    parser.add_argument("--calls", type=int, default=40, help="per thread: remember and recall in turn")
    parser.add_argument("--pool", type=int, default=2, help="PgBouncer's default_pool_size")
    parser.add_argument("--modes", nargs="+", default=list(MODES), choices=MODES)
    parser.add_argument("--deadline", type=float, default=240.0, help="seconds a mode's processes may take")
    parser.add_argument("--json", action="store_true")
    parser.add_argument(
        "--latency", type=int, metavar="N", help="instead: recall p50 at N memories, direct and pooled, jit on and off"
    )
    parser.add_argument("--samples", type=int, default=30, help="with --latency: timed calls per case")
    args = parser.parse_args()

    cluster_tools, bouncer_tools = _tool("pg_cluster"), _tool("pgbouncer")
    bindir, program = cluster_tools.binaries(), bouncer_tools.program()
    if bindir is None or program is None:
        print("needs PostgreSQL and PgBouncer: `make postgres`", file=sys.stderr)
        return 1
    cluster = cluster_tools.Cluster(bindir)
    bouncer = bouncer_tools.PgBouncer(program, cluster, mode="transaction", pool_size=args.pool)
    results = []
    try:
        if args.latency:
            figures = latency(cluster, bouncer, args.latency, args.samples)
            print(machine_line())
            print(f"recall p50 ms at {args.latency} memories, {args.samples} calls per case; pool of {args.pool}")
            labels = list(figures)
            print(f"{'case':<28}" + "".join(f"{label:>22}" for label in labels))
            for case in figures[labels[0]]:
                print(f"{case:<28}" + "".join(f"{figures[label][case]:>22}" for label in labels))
            return 0
        for mode in args.modes:
            direct = cluster.new_database()
            results.append(_run_mode(direct if mode == "direct" else bouncer.url(direct), mode, args))
    finally:
        bouncer.stop()
        cluster.stop()
    shown = subprocess.run([str(program), "--version"], check=False, capture_output=True, text=True)
    version = shown.stdout.split("\n")[0]
    if args.json:
        emit_json({"machine": machine(), "pgbouncer": version, "args": vars(args), "results": results})
        return 0
    print(machine_line())
    print(
        f"{version}, pool_mode=transaction, default_pool_size={args.pool}; {args.processes} processes x "
        f"{args.threads} threads x {args.calls} calls (remember and recall in turn)"
    )
    print(f"{'mode':<12} {'calls':>6} {'ok':>6} {'failed':>7} {'26000':>6} {'42P05':>6} {'25P02':>6}  other; p50 ms")
    for row in results:
        kinds = dict(row["failed_by_kind"])
        states = [kinds.pop(state, 0) for state in POOLER_STATES]
        other = ", ".join(f"{kind} {count}" for kind, count in kinds.items()) or "-"
        p50 = row["p50_ms"]
        print(
            f"{row['mode']:<12} {row['calls']:>6} {row['succeeded']:>6} {row['failed']:>7} "
            f"{states[0]:>6} {states[1]:>6} {states[2]:>6}  {other}; remember {p50['remember']}, "
            f"recall {p50['recall']}, wall {row['wall_s']} s"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
