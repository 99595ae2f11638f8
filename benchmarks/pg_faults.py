"""MeMesh on a PostgreSQL that fails under it: issue 39's "done when" figures, from outside, on a throwaway
PostgreSQL on 127.0.0.1 (tools/pg_cluster.py, synchronous_commit on so that acknowledged means durable).

- terminated: every MeMesh backend ended (`pg_terminate_backend`); how long the next call of a real
  `memesh serve --database URL` (HTTP) and of a stdio `memesh-mcp` (the `mcp` client) takes, and whether it answers.
- restart: `pg_ctl restart -m immediate` while a thread writes through serve; seconds from the database being back
  until serve and memesh-mcp answer, and whether every write serve acknowledged is there.
- mixed: writers and readers (threads, HTTP) inside ONE serve process for --seconds: calls, 5xx answers, the slowest
  call (none may wait 30 s on the write lock).
- unreachable: the database behind a proxy that stops forwarding (connections accepted, nothing answered, nothing
  reset; the budgets' defaults, no URL parameters): how long a cold SessionStart hook, a CLI recall and a serve call
  take to fail; and with the server down (connection refused).

    .venv/bin/python benchmarks/pg_faults.py [--seconds 20] [--writers 4] [--readers 4] [--only PART]
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from tempfile import TemporaryDirectory
from typing import Any

import httpx
import psycopg

REPO = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
sys.path.insert(0, str(REPO))

from tests.pg_faults import Proxy, terminate_memesh  # noqa: E402 - the tests' proxy and terminator, reused


def _cluster_module() -> Any:
    spec = importlib.util.spec_from_file_location("memesh_pg_cluster", REPO / "tools" / "pg_cluster.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _env(home: Path, url: str | None = None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMESH_")}
    env.update(HOME=str(home), MEMESH_DIR=str(home / ".memesh"), MEMESH_UPDATE_CHECK="0", MEMESH_HOOK_SERVER="0")
    if url is not None:
        env["MEMESH_DATABASE_URL"] = url
    return env


@contextmanager
def serve(home: Path, url: str) -> Iterator[httpx.Client]:
    proc = subprocess.Popen(
        [str(BIN / "memesh"), "serve", "--port", "0", "--database", url],
        env=_env(home),
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline().strip()
        base = line.rsplit(" ", 1)[-1]
        with httpx.Client(base_url=base, timeout=120) as client:
            yield client
    finally:
        proc.kill()
        proc.wait()


def remember(client: httpx.Client, name: str) -> int:
    body = {"name": name, "type": "fact", "observations": [f"{name} noted about the release"]}
    return client.post("/v1/remember", json=body).status_code


def recall(client: httpx.Client) -> int:
    return client.post("/v1/recall", json={"query": "noted release"}).status_code


def timed(action: Callable[[], Any]) -> tuple[float, Any]:
    started = time.monotonic()
    result = action()
    return time.monotonic() - started, result


def until_ok(action: Callable[[], bool], within: float) -> float:
    started = time.monotonic()
    while not action():
        if time.monotonic() - started > within:
            return float("inf")
        time.sleep(0.05)
    return time.monotonic() - started


class Mcp:
    """A stdio memesh-mcp through the mcp client, driven from this synchronous script through a blocking portal
    (the client's event loop on a thread of its own)."""

    def __init__(self, home: Path, url: str) -> None:
        from anyio.from_thread import start_blocking_portal
        from mcp import ClientSession, StdioServerParameters, stdio_client

        params = StdioServerParameters(command=str(BIN / "memesh-mcp"), env=_env(home, url), cwd=str(home))
        self._stack = ExitStack()
        self.portal = self._stack.enter_context(start_blocking_portal())
        errlog = self._stack.enter_context(open(os.devnull, "w"))  # noqa: PTH123, SIM115
        read, write = self._stack.enter_context(self.portal.wrap_async_context_manager(stdio_client(params, errlog)))
        self.session = self._stack.enter_context(self.portal.wrap_async_context_manager(ClientSession(read, write)))
        self.portal.call(self.session.initialize)

    def recall(self) -> bool:
        try:
            result = self.portal.call(self.session.call_tool, "recall", {"query": "noted release"})
        except Exception:
            return False
        return not result.is_error

    def close(self) -> None:
        self._stack.close()


def names(url: str) -> set[str]:
    with psycopg.connect(url) as conn:
        return {str(row[0]) for row in conn.execute("SELECT name FROM entities")}


def terminated(cluster: Any, home: Path, url: str) -> dict[str, Any]:
    mcp = Mcp(home, url)
    try:
        with serve(home, url) as client:
            remember(client, "seed")
            recall(client)
            mcp.recall()
            ended = terminate_memesh(cluster.url())
            serve_s, serve_status = timed(lambda: recall(client))
            mcp_s, mcp_ok = timed(mcp.recall)
    finally:
        mcp.close()
    return {
        "backends_ended": ended,
        "serve_next_call_s": round(serve_s, 3),
        "serve_status": serve_status,
        "mcp_next_call_s": round(mcp_s, 3),
        "mcp_ok": mcp_ok,
    }


def restart(cluster: Any, home: Path, url: str, mode: str) -> dict[str, Any]:
    acknowledged: list[str] = []
    statuses: dict[int, int] = {}
    stop = threading.Event()
    mcp = Mcp(home, url)
    try:
        with serve(home, url) as client, httpx.Client(base_url=str(client.base_url), timeout=120) as probe:

            def write() -> None:
                count = 0
                while not stop.is_set():
                    name = f"r{mode}{count}"
                    count += 1
                    try:
                        status = remember(client, name)
                    except httpx.HTTPError:
                        status = 0
                    statuses[status] = statuses.get(status, 0) + 1
                    if status == 200:
                        acknowledged.append(name)
                    else:
                        time.sleep(0.05)

            writer = threading.Thread(target=write, daemon=True)
            writer.start()
            mcp.recall()
            time.sleep(1)
            before = len(acknowledged)
            down_s, _ = timed(lambda: cluster.restart(mode))
            serve_s = until_ok(lambda: recall(probe) == 200, within=30)
            mcp_s = until_ok(mcp.recall, within=30)
            time.sleep(1)
            stop.set()
            writer.join(30)
    finally:
        mcp.close()
    missing = set(acknowledged) - names(url)
    return {
        "mode": mode,
        "acknowledged": len(acknowledged),
        "acknowledged_before_restart": before,
        "restart_s": round(down_s, 2),
        "serve_answers_after_back_s": round(serve_s, 3),
        "mcp_answers_after_back_s": round(mcp_s, 3),
        "acknowledged_missing": len(missing),
        "writer_statuses": statuses,
    }


def mixed(home: Path, url: str, seconds: float, writers: int, readers: int) -> dict[str, Any]:
    latencies: list[float] = []
    statuses: dict[int, int] = {}
    lock = threading.Lock()
    deadline = time.monotonic() + seconds
    with serve(home, url) as client:
        for index in range(20):
            remember(client, f"seed{index}")

        def work(kind: str, worker: int) -> None:
            with httpx.Client(base_url=str(client.base_url), timeout=120) as own:
                count = 0
                while time.monotonic() < deadline:
                    count += 1
                    started = time.monotonic()
                    status = remember(own, f"m{worker}-{count}") if kind == "w" else recall(own)
                    with lock:
                        latencies.append(time.monotonic() - started)
                        statuses[status] = statuses.get(status, 0) + 1

        threads = [threading.Thread(target=work, args=("w", n)) for n in range(writers)]
        threads += [threading.Thread(target=work, args=("r", n)) for n in range(readers)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    latencies.sort()
    return {
        "seconds": seconds,
        "writers": writers,
        "readers": readers,
        "calls": len(latencies),
        "statuses": statuses,
        "p50_ms": round(latencies[len(latencies) // 2] * 1000, 1),
        "p99_ms": round(latencies[int(len(latencies) * 0.99)] * 1000, 1),
        "slowest_s": round(latencies[-1], 3),
        "calls_over_30s": sum(1 for value in latencies if value >= 30),
    }


def unreachable(cluster: Any, home: Path, database: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    with _proxy(cluster.port) as proxy:
        url = f"postgresql://memesh@127.0.0.1:{proxy.port}/{database}"
        with serve(home, url) as client:
            recall(client)
            proxy.pause()
            out["serve_call_s"], out["serve_status"] = timed(lambda: recall(client))
            out["serve_next_call_s"], out["serve_next_status"] = timed(lambda: recall(client))
        event = json.dumps({"session_id": "bench", "cwd": str(home), "hook_event_name": "SessionStart"})
        hook = [str(BIN / "memesh-hook"), "session-start"]
        out["cold_hook_s"], _ = timed(
            lambda: subprocess.run(hook, input=event, env=_env(home, url), capture_output=True, text=True, check=False)
        )
        cli = [str(BIN / "memesh"), "recall", "release", "--json"]
        out["cli_recall_s"], result = timed(
            lambda: subprocess.run(cli, env=_env(home, url), capture_output=True, text=True, check=False)
        )
        out["cli_exit"] = result.returncode
    refused = f"postgresql://memesh@127.0.0.1:{proxy.port}/{database}"  # the proxy closed: nothing listens there
    out["refused_cold_hook_s"], _ = timed(
        lambda: subprocess.run(hook, input=event, env=_env(home, refused), capture_output=True, text=True, check=False)
    )
    out["refused_cli_recall_s"], _ = timed(
        lambda: subprocess.run(cli, env=_env(home, refused), capture_output=True, check=False)
    )
    return {name: round(value, 3) if isinstance(value, float) else value for name, value in out.items()}


@contextmanager
def _proxy(port: int) -> Iterator[Proxy]:
    proxy = Proxy(("127.0.0.1", port))
    try:
        yield proxy
    finally:
        proxy.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--writers", type=int, default=4)
    parser.add_argument("--readers", type=int, default=4)
    parser.add_argument("--only", choices=("terminated", "restart", "mixed", "unreachable"), help="one part only")
    args = parser.parse_args()
    tools = _cluster_module()
    bindir = tools.binaries()
    if bindir is None:
        print("PostgreSQL is not installed: apt-get install -y postgresql", file=sys.stderr)
        return 1
    cluster = tools.Cluster(bindir, tcp=True, settings=("synchronous_commit=on",))
    with TemporaryDirectory(prefix="memesh-pg-faults-") as folder:
        home = Path(folder)
        url = cluster.new_database()
        print(f"psycopg {psycopg.__version__} ({psycopg.pq.__impl__}), PostgreSQL on 127.0.0.1", flush=True)
        wanted = {args.only} if args.only else {"terminated", "restart", "mixed", "unreachable"}
        if "terminated" in wanted:
            print("terminated:", json.dumps(terminated(cluster, home, url)), flush=True)
        for mode in ("fast", "immediate") if "restart" in wanted else ():
            print("restart:", json.dumps(restart(cluster, home, url, mode)), flush=True)
        if "mixed" in wanted:
            print("mixed:", json.dumps(mixed(home, url, args.seconds, args.writers, args.readers)), flush=True)
        if "unreachable" in wanted:
            database = url.rsplit("/", 1)[-1]
            print("unreachable:", json.dumps(unreachable(cluster, home, database)), flush=True)
    cluster.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
