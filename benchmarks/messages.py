"""Agent messages: what a handover costs, how soon a waiting poll wakes, how many sends 8 writers make, and what the
storage report costs at 100k messages.

1. send → fetch round trip through the real `memesh-mcp` (mcp client over stdio) and the real HTTP server (httpx
   over a loopback socket), `--calls` times each: p50 / p95 in ms.
2. Long-poll wake latency: a client waits in `poll` with `wait_ms`, another process sends; the time from the send's
   answer to the waiting poll's answer (HTTP and MCP), `--wakes` times.
3. Sends per second with 8 writer processes, each sending `--per-writer` messages through dispatch on its own
   connection to one database file.
4. `memesh message storage report` on `--messages` stored messages (default 100,000), seeded directly.

Figures only, never assertions. Every server and writer runs on this machine's loopback or a temp folder.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
from _common import emit_json, machine, machine_line, median, ms, percentile
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

BIN = Path(sys.executable).parent
PROJECT = "bench~" + "b" * 32
RUNNING = re.compile(r"running at (http://127\.0\.0\.1:\d+)")


def send_body(key: str, recipient: str = "reviewer") -> dict[str, Any]:
    return {
        "action": "send",
        "project": PROJECT,
        "sender": "bench",
        "recipient": recipient,
        "idempotency_key": key,
        "payload": f"handover {key}: review the auth change",
    }


def summary(samples: list[float]) -> dict[str, float]:
    return {"p50_ms": ms(median(samples)), "p95_ms": ms(percentile(samples, 0.95)), "n": len(samples)}


class HttpServer:
    def __init__(self, folder: Path) -> None:
        env = {**os.environ, "MEMESH_DIR": str(folder), "MEMESH_DB_PATH": str(folder / "k.db")}
        code = "import sys\nfrom memesh.transports.http.serve import serve\nsys.exit(serve(host='127.0.0.1', port=0))"
        self.proc = subprocess.Popen(
            [sys.executable, "-c", code], env=env, cwd=folder, stdout=subprocess.PIPE, text=True
        )
        assert self.proc.stdout is not None
        match = RUNNING.search(self.proc.stdout.readline())
        assert match, "the HTTP server did not start"
        self.url = match[1]

    def stop(self) -> None:
        self.proc.send_signal(signal.SIGTERM)
        self.proc.wait(timeout=30)


def http_round_trips(url: str, calls: int) -> list[float]:
    samples = []
    with httpx.Client(base_url=url, timeout=60) as client:
        for n in range(calls):
            start = time.perf_counter()
            sent = client.post("/v1/message", json=send_body(f"h{n}")).json()["data"]
            fetched = client.post(
                "/v1/message",
                json={"action": "fetch", "project": PROJECT, "recipient": "reviewer", "message_id": sent["message_id"]},
            ).json()["data"]
            samples.append(time.perf_counter() - start)
            assert fetched["payload"].startswith("handover")
    return samples


async def mcp_round_trips(db: Path, calls: int) -> list[float]:
    params = StdioServerParameters(command=str(BIN / "memesh-mcp"), env={"MEMESH_DB_PATH": str(db)})
    samples = []
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        for n in range(calls):
            start = time.perf_counter()
            sent = await session.call_tool("message", send_body(f"m{n}"))
            assert sent.structured_content is not None
            message_id = sent.structured_content["message_id"]
            fetched = await session.call_tool(
                "message", {"action": "fetch", "project": PROJECT, "recipient": "reviewer", "message_id": message_id}
            )
            samples.append(time.perf_counter() - start)
            assert not fetched.is_error
    return samples


def http_wakes(url: str, wakes: int) -> list[float]:
    """A poll waits (wait_ms 30000) on one connection; the send goes on another; time from send answered to poll."""
    samples = []

    async def one(n: int) -> float:
        recipient = f"waker{n}"
        async with (
            httpx.AsyncClient(base_url=url, timeout=60) as waiter,
            httpx.AsyncClient(base_url=url, timeout=60) as sender,
        ):
            body = {"action": "poll", "project": PROJECT, "recipient": recipient, "wait_ms": 30_000}
            waiting = asyncio.create_task(waiter.post("/v1/message", json=body))
            await asyncio.sleep(0.3)  # the poll is waiting by now
            await sender.post("/v1/message", json=send_body(f"w{n}", recipient))
            sent_at = time.perf_counter()
            answer = (await waiting).json()["data"]
            assert answer["events"], answer
            return time.perf_counter() - sent_at

    for n in range(wakes):
        samples.append(asyncio.run(one(n)))
    return samples


async def mcp_wakes(db: Path, wakes: int) -> list[float]:
    params = StdioServerParameters(command=str(BIN / "memesh-mcp"), env={"MEMESH_DB_PATH": str(db)})
    samples = []
    async with (
        stdio_client(params) as (read_a, write_a),
        ClientSession(read_a, write_a) as waiter,
        stdio_client(params) as (read_b, write_b),
        ClientSession(read_b, write_b) as sender,
    ):
        await waiter.initialize()
        await sender.initialize()
        for n in range(wakes):
            recipient = f"mcpwaker{n}"
            body = {"action": "poll", "project": PROJECT, "recipient": recipient, "wait_ms": 30_000}
            waiting = asyncio.create_task(waiter.call_tool("message", body))
            await asyncio.sleep(0.3)
            await sender.call_tool("message", send_body(f"mw{n}", recipient))
            sent_at = time.perf_counter()
            answer = await waiting
            assert answer.structured_content and answer.structured_content["events"]
            samples.append(time.perf_counter() - sent_at)
    return samples


WRITER = """
import sys, time
from pathlib import Path
from memesh.context import CallContext
from _common import call
from memesh.store.sqlite import open_store
db, prefix, count, project = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
store = open_store(Path(db))
ctx = CallContext(source_host="bench", agent_view=False)
body = {"action": "send", "project": project, "sender": "bench", "recipient": "inbox", "payload": "work item"}
sys.stdout.write("ready\\n"); sys.stdout.flush(); sys.stdin.readline()
for n in range(count):
    call("message", store, {**body, "idempotency_key": f"{prefix}-{n}"}, ctx).unwrap()
"""


def writers(folder: Path, count: int, per_writer: int) -> dict[str, Any]:
    db = folder / f"writers{count}.db"
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", WRITER, str(db), f"w{n}", str(per_writer), PROJECT],
            cwd=folder,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        for n in range(count)
    ]
    for proc in procs:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "ready"
    start = time.perf_counter()
    for proc in procs:
        assert proc.stdin is not None
        proc.stdin.write("go\n")
        proc.stdin.flush()
    for proc in procs:
        proc.wait(timeout=600)
    elapsed = time.perf_counter() - start
    total = count * per_writer
    return {
        "writers": count,
        "sends": total,
        "seconds": round(elapsed, 3),
        "sends_per_second": round(total / elapsed, 1),
    }


def storage_report(folder: Path, messages: int) -> dict[str, Any]:
    from memesh.app import dispatch
    from memesh.app.operations.messages import MESSAGE_STORAGE_REPORT
    from memesh.app.resources import Resources
    from memesh.context import CallContext
    from memesh.core.messages_model import NewMessage
    from memesh.store.sqlite import open_store

    store = open_store(folder / "report.db")
    seed_start = time.perf_counter()
    with store.transaction():
        for n in range(messages):
            store.insert_message(
                NewMessage(
                    message_id=f"msg_{n:032x}",
                    delivery_id=f"dlv_{n:032x}",
                    project=PROJECT,
                    sender="bench",
                    sender_host="bench",
                    recipient=f"r{n % 50}",
                    target_kind="principal",
                    intended_session=None,
                    content_type="text/plain",
                    privacy="private",
                    correlation_id=None,
                    reply_to=None,
                    payload='"' + "x" * 200 + '"',
                    payload_bytes=202,
                    idempotency_key=f"k{n}",
                    request_digest="d",
                    created_at="2026-11-01T00:00:00.000Z",
                )
            )
    seeded = time.perf_counter() - seed_start
    ctx = CallContext(source_host="bench", agent_view=False)
    samples = []
    for _ in range(3):
        start = time.perf_counter()
        out = dispatch.run(
            MESSAGE_STORAGE_REPORT, Resources.over(store), {"cutoff": "2026-12-01T00:00:00Z"}, ctx
        ).unwrap()
        samples.append(time.perf_counter() - start)
    store.close()
    return {
        "messages": messages,
        "seed_seconds": round(seeded, 2),
        "report_ms": [ms(s) for s in samples],
        "logical_payload_bytes": out["logical_payload"]["bytes"],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--wakes", type=int, default=20)
    parser.add_argument("--per-writer", type=int, default=250)
    parser.add_argument("--messages", type=int, default=100_000)
    args = parser.parse_args()
    figures: dict[str, Any] = {"machine": machine()}
    with tempfile.TemporaryDirectory(prefix="mb") as name:
        folder = Path(name)
        server = HttpServer(folder)
        try:
            figures["round_trip_http"] = summary(http_round_trips(server.url, args.calls))
            figures["wake_http"] = summary(http_wakes(server.url, args.wakes))
        finally:
            server.stop()
        figures["round_trip_mcp"] = summary(asyncio.run(mcp_round_trips(folder / "k.db", args.calls)))
        figures["wake_mcp"] = summary(asyncio.run(mcp_wakes(folder / "k.db", args.wakes)))
        figures["one_writer"] = writers(folder, 1, args.per_writer)
        figures["eight_writers"] = writers(folder, 8, args.per_writer)
        figures["storage_report"] = storage_report(folder, args.messages)
    print(machine_line(), file=sys.stderr)
    emit_json(figures)


if __name__ == "__main__":
    main()
