"""A storm of waiting message polls against `memesh serve`: how many it holds waiting, what the rest are answered,
and whether unrelated requests still get their answer while the waiters are held.

Run it with the descriptor limit of an ordinary login shell, for example `ulimit -n 1024 && .venv/bin/python
benchmarks/poll_storm.py`. The server inherits that limit. The polls come from `--clients` helper processes of this
script, each holding its share of the sockets (so no process needs more descriptors than the limit allows).

For each storm size (`--storms`, default 200 600 1100 2000): that many polls with `wait_ms` 30000 on an empty inbox,
all connected at once; then `--probes` unrelated requests (GET /v1/health and POST /v1/recall, one connection each)
while they wait. Figures per storm: how many polls were still waiting (no answer) after `--settle` seconds, how many
were answered at once and with which status, how many could not connect, and the probes' statuses. The ceiling
printed last is the largest number of polls the server held waiting while every probe got 200.

Figures only, never assertions. The server runs on this machine's loopback in a temp folder.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import resource
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

from _common import emit_json, machine, machine_line

RUNNING = re.compile(r"running at http://127\.0\.0\.1:(\d+)")
PROJECT = "bench~" + "c" * 32


def request(method: str, path: str, body: dict[str, Any] | None = None) -> bytes:
    data = json.dumps(body).encode() if body is not None else b""
    head = f"{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
    if body is not None:
        head += f"Content-Type: application/json\r\nContent-Length: {len(data)}\r\n"
    return head.encode() + b"\r\n" + data


POLL = request("POST", "/v1/message", {"action": "poll", "project": PROJECT, "recipient": "storm", "wait_ms": 30000})
PROBES = (request("GET", "/v1/health"), request("POST", "/v1/recall", {"query": "storm", "limit": 1}))


async def one_request(port: int, raw: bytes, timeout: float) -> str:
    """The status line's code, "connect-failed", "no-answer" (still waiting at `timeout`) or "closed"."""
    try:
        reader, writer = await asyncio.wait_for(asyncio.open_connection("127.0.0.1", port), timeout)
    except (OSError, TimeoutError):
        return "connect-failed"
    try:
        writer.write(raw)
        await writer.drain()
        line = await asyncio.wait_for(reader.readline(), timeout)
        return line.split()[1].decode() if len(line.split()) > 1 else "closed"
    except TimeoutError:
        return "no-answer"
    except OSError:
        return "closed"
    finally:
        writer.close()


async def hold(port: int, count: int, settle: float) -> Counter[str]:
    return Counter(await asyncio.gather(*(one_request(port, POLL, settle) for _ in range(count))))


def worker(port: int, count: int, settle: float) -> None:
    """One helper process: `count` polls at once; prints their outcomes as JSON when `settle` seconds are up."""
    print(json.dumps(asyncio.run(hold(port, count, settle))), flush=True)


def storm(port: int, size: int, clients: int, settle: float, probes: int) -> dict[str, Any]:
    shares = [size // clients + (1 if index < size % clients else 0) for index in range(clients)]
    helpers = [
        subprocess.Popen(
            [sys.executable, __file__, "--worker", str(port), str(share), str(settle)],
            stdout=subprocess.PIPE,
            text=True,
        )
        for share in shares
        if share
    ]
    time.sleep(min(settle / 2, 3.0))  # the polls are connected and waiting
    started = time.perf_counter()
    probed = asyncio.run(_probe(port, probes))
    probe_seconds = time.perf_counter() - started
    polls: Counter[str] = Counter()
    for helper in helpers:
        out, _ = helper.communicate(timeout=settle + 60)
        polls.update(json.loads(out))
    waiting = polls.pop("no-answer", 0)
    return {
        "polls": size,
        "held_waiting": waiting,
        "answered_at_once": dict(polls),
        "probes": dict(probed),
        "probe_seconds": round(probe_seconds, 2),
    }


async def _probe(port: int, probes: int) -> Counter[str]:
    found: Counter[str] = Counter()
    for index in range(probes):
        found[await one_request(port, PROBES[index % len(PROBES)], 10.0)] += 1
    return found


def serve(folder: Path) -> subprocess.Popen[str]:
    env = {**os.environ, "HOME": str(folder), "MEMESH_DIR": str(folder / ".memesh")}
    env["MEMESH_DB_PATH"] = str(folder / ".memesh" / "knowledge-graph.db")
    code = "import sys\nfrom memesh.transports.http.serve import serve\nsys.exit(serve(host='127.0.0.1', port=0))"
    return subprocess.Popen([sys.executable, "-c", code], env=env, cwd=folder, stdout=subprocess.PIPE, text=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--storms", type=int, nargs="+", default=[200, 600, 1100, 2000])
    parser.add_argument("--clients", type=int, default=4, help="helper processes the polls are spread over")
    parser.add_argument("--settle", type=float, default=8.0, help="seconds a poll counts as waiting after")
    parser.add_argument("--probes", type=int, default=20)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--worker", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        worker(int(args.worker[0]), int(args.worker[1]), float(args.worker[2]))
        return
    limit = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    with tempfile.TemporaryDirectory(prefix="memesh-poll-storm-") as name:
        server = serve(Path(name))
        try:
            assert server.stdout is not None
            match = RUNNING.search(server.stdout.readline())
            if match is None:
                raise SystemExit("the HTTP server did not start")
            port = int(match[1])
            rows = [storm(port, size, args.clients, args.settle, args.probes) for size in args.storms]
        finally:
            server.send_signal(signal.SIGTERM)
            server.wait(timeout=30)
    healthy = [row["held_waiting"] for row in rows if set(row["probes"]) == {"200"}]
    ceiling = max(healthy, default=0)
    if args.json:
        emit_json({"machine": machine(), "descriptor_limit": limit, "storms": rows, "ceiling": ceiling})
        return
    print(machine_line())
    print(f"descriptor limit (soft): {limit}")
    print("| polls | held waiting | answered at once | probes (status: count) |")
    print("|---|---|---|---|")
    for row in rows:
        answered = ", ".join(f"{k}: {v}" for k, v in sorted(row["answered_at_once"].items())) or "-"
        probed = ", ".join(f"{k}: {v}" for k, v in sorted(row["probes"].items()))
        print(f"| {row['polls']} | {row['held_waiting']} | {answered} | {probed} |")
    print(f"ceiling: {ceiling} polls held waiting with every unrelated request answered 200")


if __name__ == "__main__":
    main()
