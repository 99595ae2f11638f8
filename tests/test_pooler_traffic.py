"""A team's traffic through a real PgBouncer in transaction mode (issue 39: 447 of 522 calls failed there): `memesh
serve`'s HTTP API answering several threads and CLI processes remembering and recalling at once, through a pool of
two server connections. At least 95 % of the calls succeed, none fails on a prepared statement or an aborted
transaction, and every acknowledged memory is stored.

Serve's threads wait on the database in one process: this needs waits that release the GIL (issue 39's connection
lifecycle work); with libpq's blocking read, a thread waiting for a sent script's answer held the GIL while the
thread holding the write lock could not commit, and every call stalled until lock_timeout."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import psycopg

from tests.pooler import POOLER_SQLSTATES, Pooled, sqlstate
from tests.transports.http.real_server import exchange, request
from tests.transports.http.test_serve import Running

BIN = Path(sys.executable).parent
HTTP_THREADS = 4
HTTP_CALLS = 24  # per thread, remember and recall in turn
CLI_PROCESSES = 2
CLI_CALLS = 6  # per process line, one after another


@dataclass
class Outcome:
    surface: str
    tool: str
    ok: bool
    state: str | None = None  # the SQLSTATE a failure's message carries, if any
    name: str | None = None  # the memory an acknowledged remember stored


def _environment(tmp_path: Path, url: str) -> dict[str, str]:
    home = tmp_path / "home"
    env = {key: value for key, value in os.environ.items() if (not key.startswith("MEMESH_") or key == "MEMESH_DAEMON")}
    env.update(
        HOME=str(home),
        MEMESH_DIR=str(home / ".memesh"),
        MEMESH_DB_PATH=str(home / ".memesh" / "kg.db"),  # its folder keeps the local files
        MEMESH_DATABASE_URL=url,
        MEMESH_DATABASE_POOLER="transaction",
        MEMESH_UPDATE_CHECK="0",
    )
    return env


def _http_caller(port: int, thread: int, outcomes: list[Outcome]) -> None:
    for index in range(HTTP_CALLS):
        if index % 2 == 0:
            name = f"http-{thread}-{index}"
            body = {"name": name, "type": "note", "observations": [f"pooled traffic from thread {thread}"]}
            status, _, answer = exchange(port, request("POST", "/v1/remember", body))
            tool = "remember"
        else:
            name = None
            status, _, answer = exchange(port, request("POST", "/v1/recall", {"query": "pooled traffic"}))
            tool = "recall"
        state = None if status == 200 else sqlstate(json.dumps(answer))
        outcomes.append(Outcome("http", tool, status == 200, state, name if status == 200 else None))


def _cli_caller(env: dict[str, str], cwd: Path, line: int, outcomes: list[Outcome]) -> None:
    for index in range(CLI_CALLS):
        if index % 2 == 0:
            name = f"cli-{line}-{index}"
            argv = ["remember", "--name", name, "--type", "note", "--obs", f"pooled traffic from cli {line}"]
            tool = "remember"
        else:
            name, argv, tool = None, ["recall", "pooled", "traffic", "--json"], "recall"
        done = subprocess.run(
            [str(BIN / "memesh"), *argv], env=env, cwd=cwd, capture_output=True, text=True, check=False, timeout=120
        )
        ok = done.returncode == 0
        state = None if ok else sqlstate(done.stderr + done.stdout)
        outcomes.append(Outcome("cli", tool, ok, state, name if ok else None))


def test_serve_and_the_cli_through_pgbouncer_in_transaction_mode_answer_with_no_prepared_statement_failures(
    tmp_path: Path, pgbouncer: Callable[..., Pooled]
) -> None:
    pooled = pgbouncer(pool_size=2)
    env = _environment(tmp_path, pooled.url)
    code = "import sys\nfrom memesh.transports.http.serve import serve\nsys.exit(serve(host='127.0.0.1', port=0))"
    proc = subprocess.Popen(
        [sys.executable, "-c", code], cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    outcomes: list[Outcome] = []
    try:
        server = Running(proc)
        threads = [
            threading.Thread(target=_http_caller, args=(server.port, thread, outcomes))
            for thread in range(HTTP_THREADS)
        ] + [
            threading.Thread(target=_cli_caller, args=(env, tmp_path, line, outcomes)) for line in range(CLI_PROCESSES)
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=300)
        assert not any(thread.is_alive() for thread in threads)
    finally:
        proc.kill()
        proc.wait()

    assert len(outcomes) == HTTP_THREADS * HTTP_CALLS + CLI_PROCESSES * CLI_CALLS
    failed = [outcome for outcome in outcomes if not outcome.ok]
    assert len(failed) <= 0.05 * len(outcomes), failed
    assert not [outcome for outcome in failed if outcome.state in POOLER_SQLSTATES]
    acknowledged = {outcome.name for outcome in outcomes if outcome.name is not None}
    with psycopg.connect(pooled.direct, autocommit=True) as conn:
        stored = {row[0] for row in conn.execute("SELECT name FROM entities")}
    assert acknowledged <= stored
