"""MCP over HTTP: one recall round trip over `memesh serve`'s /mcp, over its /v1/recall and over memesh-mcp's stdio.

A database of `--n` synthetic memories (scale.py's corpus, stored through remember) is served three ways, each
reached by the client an agent or a program would use:
- stdio: `memesh-mcp` spawned by the mcp SDK's stdio client (ClientSession, protocol 2025-11-25);
- /mcp: `memesh serve` reached by the SDK's streamable HTTP client, in both eras — a 2025-11-25 session
  (ClientSession: initialize, then a session id on every request) and 2026-07-28 (mcp.Client: one self-contained
  request per call) — with the server's session manager stateful (sessions, SSE answers: what it serves) and, to
  decide that choice (docs/adr/0007-mcp-over-http.md), stateless (a fresh transport per request);
- /v1/recall: the same server's HTTP API through one keep-alive httpx client.
Figures: p50/p95 of `--calls` recall round trips per path (request sent to result received; 2-term queries drawn
from the corpus, the same sequence for every path), the CPU time per call of the client and of the serving process
(from /proc: a shared machine's other work inflates wall time far more than CPU time), and what opening a client
costs (connect and first tools/list; median of 5 for the HTTP paths). For each server mode: the worker's resident
memory after the calls, and what each of 100 more open sessions adds to it.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AsyncExitStack, asynccontextmanager
from pathlib import Path
from typing import Any

import httpx
from _common import Tools, emit_json, machine, machine_line, ms, percentile
from mcp import Client, ClientSession, StdioServerParameters, types
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client
from scale import Corpus, bulk_load

from memesh.store.sqlite import open_store

BIN = Path(sys.executable).parent
RUNNING = re.compile(r"^MeMesh HTTP server running at (?P<url>http://\S+)$")
LAUNCH = (
    "import sys\nfrom memesh.transports.mcp import streamable\nstreamable.STATELESS = {stateless}\n"
    "from memesh.transports.http.serve import serve\nsys.exit(serve(port=0))"
)
INFO = types.Implementation(name="bench", version="1")


class Server:
    """`memesh serve` on a free port, its session manager stateful or stateless (granian's worker is forked, so
    the flag set before serve() holds there)."""

    def __init__(self, env: dict[str, str], folder: Path, *, stateless: bool) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-c", LAUNCH.format(stateless=stateless)],
            cwd=folder,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )
        assert self.proc.stdout is not None
        match = RUNNING.match(self.proc.stdout.readline().strip())
        if match is None:
            raise SystemExit("memesh serve did not start")
        self.base = match["url"]

    def worker_rss_mb(self) -> float:
        """Resident memory of granian's worker (the process that serves), from /proc."""
        total = 0
        for pid in children(self.proc.pid):
            status = Path(f"/proc/{pid}/status").read_text()
            fields = dict(line.split(":", 1) for line in status.splitlines() if ":" in line)
            total += int(fields.get("VmRSS", "0 kB").split()[0])
        return round(total / 1024, 1)

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def children(parent: int, named: str = "") -> list[int]:
    """The processes whose parent is `parent` (and whose command line holds `named`), from /proc."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            command = (entry / "cmdline").read_bytes().decode(errors="replace")
        except OSError:
            continue
        if int(stat.rsplit(")", 1)[1].split()[1]) == parent and named in command:
            found.append(int(entry.name))
    return found


def cpu_seconds(pids: list[int]) -> float:
    """User + system CPU time the processes have used so far."""
    total = 0
    for pid in pids:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        total += int(fields[11]) + int(fields[12])  # utime, stime (fields 14 and 15 of stat)
    return total / os.sysconf("SC_CLK_TCK")


Call = Callable[[str], Awaitable[Any]]


async def timed(call: Call, queries: list[str], server: list[int]) -> dict[str, float]:
    """Wall time per call (p50, p95), and the CPU per call of this client process and of the server, which the
    other work on a shared machine disturbs less than wall time."""
    samples = []
    client_cpu, server_cpu = time.process_time(), cpu_seconds(server)
    for query in queries:
        started = time.perf_counter()
        await call(query)
        samples.append(time.perf_counter() - started)
    client_cpu, server_cpu = time.process_time() - client_cpu, cpu_seconds(server) - server_cpu
    return {
        "p50_ms": ms(percentile(samples, 0.5)),
        "p95_ms": ms(percentile(samples, 0.95)),
        "client_cpu_ms": ms(client_cpu / len(queries)),
        "server_cpu_ms": ms(server_cpu / len(queries)),
    }


def checked(result: types.CallToolResult) -> types.CallToolResult:
    if result.is_error:
        raise SystemExit(f"recall failed: {result.content}")
    return result


@asynccontextmanager
async def legacy_session(transport: Any) -> AsyncIterator[ClientSession]:
    async with transport as (read, write), ClientSession(read, write, client_info=INFO) as session:
        await session.initialize()
        yield session


@asynccontextmanager
async def opened(kind: str, target: str, env: dict[str, str], folder: Path) -> AsyncIterator[Call]:
    """A recall call over one path: kind is stdio, mcp-legacy, mcp-modern or v1."""
    if kind == "v1":
        async with httpx.AsyncClient(base_url=target, timeout=60) as http:

            async def over_v1(query: str) -> Any:
                answer = await http.post("/v1/recall", json={"query": query})
                answer.raise_for_status()
                return answer.json()

            yield over_v1
        return
    if kind == "stdio":
        params = StdioServerParameters(command=str(BIN / "memesh-mcp"), env=env, cwd=str(folder))
        async with legacy_session(stdio_client(params)) as session:
            await session.list_tools()
            yield lambda query: _call(session, query)
        return
    if kind == "mcp-legacy":
        async with legacy_session(streamable_http_client(f"{target}/mcp")) as session:
            await session.list_tools()
            yield lambda query: _call(session, query)
        return
    async with Client(f"{target}/mcp", client_info=INFO) as client:
        await client.list_tools()
        yield lambda query: _call(client, query)


async def _call(peer: ClientSession | Client, query: str) -> types.CallToolResult:
    return checked(await peer.call_tool("recall", {"query": query}))


async def measure(
    kind: str, target: str, env: dict[str, str], folder: Path, queries: list[str], *, server: int | None = None
) -> dict[str, Any]:
    started = time.perf_counter()
    async with opened(kind, target, env, folder) as call:
        opening = time.perf_counter() - started
        await call(queries[0])  # warm: the first call opens the worker thread's connection
        serving = children(server) if server is not None else children(os.getpid(), "memesh-mcp")
        figures = await timed(call, queries, serving)
    opens = []
    for _ in range(5 if kind != "stdio" else 0):
        started = time.perf_counter()
        async with opened(kind, target, env, folder):
            opens.append(time.perf_counter() - started)
    figures["open_ms"] = ms(opening) if not opens else ms(percentile(opens, 0.5))
    return figures


SESSIONS = 100


async def session_memory(server: Server) -> float:
    """What SESSIONS more open 2025-11-25 clients (initialized, listed, left open) add to the server's memory, per
    client, in KB."""
    before = server.worker_rss_mb()
    async with AsyncExitStack() as stack:
        for _ in range(SESSIONS):
            session = await stack.enter_async_context(legacy_session(streamable_http_client(f"{server.base}/mcp")))
            await session.list_tools()
        during = server.worker_rss_mb()
    return round((during - before) * 1024 / SESSIONS, 1)


async def run(count: int, calls: int, seed: int) -> dict[str, Any]:
    corpus = Corpus(seed)
    queries = [corpus.query(2) for _ in range(calls)]
    results: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="memesh-mcp-http-") as name:
        folder = Path(name)
        db = folder / "knowledge-graph.db"
        store = open_store(db)
        load = bulk_load(Tools(store), corpus, count)
        store.close()
        results["load_seconds"] = round(load, 1)
        env = {
            **os.environ,
            "HOME": str(folder),
            "MEMESH_DIR": str(folder / ".memesh"),
            "MEMESH_DB_PATH": str(db),
            "MEMESH_UPDATE_CHECK": "0",
            "MEMESH_HOOK_SERVER": "0",
        }
        results["stdio"] = await measure("stdio", "", env, folder, queries)
        for mode, stateless in (("stateful", False), ("stateless", True)):
            server = Server(env, folder, stateless=stateless)
            try:
                await asyncio.sleep(2.0)  # the SDK loads in the background once the server listens
                for kind in ("mcp-legacy", "mcp-modern", "v1"):
                    results[f"{kind} ({mode})"] = await measure(
                        kind, server.base, env, folder, queries, server=server.proc.pid
                    )
                results[f"server rss MB ({mode})"] = server.worker_rss_mb()
                results[f"server KB per open session ({mode})"] = await session_memory(server)
            finally:
                server.stop()
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=10_000, help="memories in the database (default 10000)")
    parser.add_argument("--calls", type=int, default=200, help="timed recall round trips per path (default 200)")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args()
    if shutil.which(str(BIN / "memesh-mcp")) is None:
        raise SystemExit(f"memesh-mcp is not installed in {BIN}")
    summary = asyncio.run(run(args.n, args.calls, args.seed))
    if args.json:
        emit_json({"summary": summary, "machine": machine()})
        return
    print(machine_line())
    print(f"recall round trips at {args.n} memories ({args.calls} calls per path; 2-term queries)")
    for label, figures in summary.items():
        if isinstance(figures, dict):
            print(
                f"  {label:<24} p50 {figures['p50_ms']:>7} ms   p95 {figures['p95_ms']:>7} ms"
                f"   cpu/call client {figures['client_cpu_ms']:>6} ms server {figures['server_cpu_ms']:>6} ms"
                f"   open {figures['open_ms']:>8} ms"
            )
        else:
            print(f"  {label:<24} {figures}")


if __name__ == "__main__":
    main()
