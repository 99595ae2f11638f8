"""Principal pushes: what a principal send costs (a) without a router, (b) with a router and no eligible session,
and (c) with a router pushing to an activated host adapter that accepts at once (the send returns after that
acceptance and the router's record of it). Sends run through dispatch on one database file; the router and the
adapter run in this process on a temp folder's socket.

Figures only, never assertions.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from _common import call, emit_json, machine, machine_line, median, ms, percentile

from memesh.adapters.router_client import RouterClient
from memesh.adapters.router_host import HostAdapter
from memesh.context import CallContext
from memesh.store.sqlite import open_store
from memesh.transports.router.server import serve

PROJECT = "bench~" + "0" * 32


def summary(samples: list[float]) -> dict[str, float]:
    return {"p50_ms": ms(median(samples)), "p95_ms": ms(percentile(samples, 0.95)), "n": len(samples)}


def sends(db: Path, socket: Path, label: str, calls: int) -> tuple[list[float], list[bool]]:
    ctx = CallContext(source_host="bench", agent_view=False, router=lambda: RouterClient(socket))
    store = open_store(db)
    took, pushed = [], []
    try:
        for n in range(calls):
            body = {
                "action": "send",
                "project": PROJECT,
                "sender": "bench",
                "recipient": "reviewer",
                "idempotency_key": f"{label}-{n}",
                "payload": "a short handoff",
            }
            start = time.perf_counter()
            out = call("message", store, body, ctx).unwrap()
            took.append(time.perf_counter() - start)
            pushed.append("host_accept" in out)
    finally:
        store.close()
    return took, pushed


async def run(folder: Path, calls: int) -> dict[str, Any]:
    db, socket = folder / "k.db", folder / "router.sock"
    figures: dict[str, Any] = {}
    took, _ = await asyncio.to_thread(sends, db, socket, "none", calls)
    figures["send_without_router"] = summary(took)
    ready = asyncio.Event()
    router = asyncio.create_task(serve(socket, db, ready))
    await asyncio.wait_for(ready.wait(), 10)
    try:
        took, _ = await asyncio.to_thread(sends, db, socket, "idle", calls)
        figures["send_router_no_eligible_session"] = summary(took)

        async def accept(envelope: dict[str, Any]) -> bool | str:
            return True

        host = HostAdapter(
            session_id="s1", principal_id="reviewer", project=PROJECT, host_kind="test", accept=accept, path=socket
        )
        await host.connect()
        await host.activate()
        await asyncio.sleep(0.1)
        took, pushed = await asyncio.to_thread(sends, db, socket, "push", calls)
        await host.close()
        await asyncio.sleep(0.2)  # the router sees the adapter leave before it is stopped
        figures["send_pushed_and_accepted"] = {**summary(took), "pushed": sum(pushed)}
    finally:
        router.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await router
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=200)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="mp", dir="/tmp") as name:
        figures = asyncio.run(run(Path(name), args.calls))
    print(machine_line(), file=sys.stderr)
    emit_json({"machine": machine(), **figures})


if __name__ == "__main__":
    main()
