"""MCP round trip: what one tools/call costs an agent, over stdio, through the real `memesh-mcp` server.

Spawns the console script through the mcp client (the same path Claude Code or Codex take), seeds `--seed` memories
with the `remember` tool, then times `--calls` tools/call round trips each of `remember` (a new memory each time) and
`recall` (one- and two-term queries drawn from the seeded text), from request sent to result received. Prints p50 and
p99 in milliseconds, and the machine's load.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from _common import emit_json, machine, machine_line, ms, percentile
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

BIN = Path(sys.executable).parent
WORDS = [
    "deploy",
    "rollout",
    "canary",
    "kubernetes",
    "postgres",
    "vacuum",
    "index",
    "migration",
    "schema",
    "backup",
    "restore",
    "token",
    "session",
    "cookie",
    "cache",
    "redis",
    "queue",
    "worker",
    "retry",
    "timeout",
    "latency",
    "budget",
    "alert",
    "pager",
    "incident",
    "review",
    "decision",
    "lesson",
    "pattern",
]


def _text(rng: random.Random) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(12))


async def run(seed: int, calls: int) -> dict[str, Any]:
    rng = random.Random(7)
    with tempfile.TemporaryDirectory() as folder:
        env = {**os.environ, "MEMESH_DB_PATH": str(Path(folder) / "k.db")}
        params = StdioServerParameters(command=str(BIN / "memesh-mcp"), env=env, cwd=folder)
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            for index in range(seed):
                await session.call_tool(
                    "remember", {"name": f"seed-{index}", "type": "note", "observations": [_text(rng)]}
                )
            timings: dict[str, list[float]] = {"remember": [], "recall 1 term": [], "recall 2 terms": []}
            for index in range(calls):
                cases: dict[str, tuple[str, dict[str, Any]]] = {
                    "remember": ("remember", {"name": f"new-{index}", "type": "note", "observations": [_text(rng)]}),
                    "recall 1 term": ("recall", {"query": rng.choice(WORDS)}),
                    "recall 2 terms": ("recall", {"query": f"{rng.choice(WORDS)} {rng.choice(WORDS)}"}),
                }
                for label, (tool, arguments) in cases.items():
                    started = time.perf_counter()
                    result = await session.call_tool(tool, arguments)
                    timings[label].append(time.perf_counter() - started)
                    if result.is_error:
                        raise SystemExit(f"{tool} failed: {result.content}")
    return {
        label: {"p50_ms": ms(percentile(samples, 0.5)), "p99_ms": ms(percentile(samples, 0.99))}
        for label, samples in timings.items()
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=1000, help="memories stored before timing (default 1000)")
    parser.add_argument("--calls", type=int, default=200, help="timed round trips per case (default 200)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args()
    summary = asyncio.run(run(args.seed, args.calls))
    if args.json:
        emit_json({"summary": summary, "machine": machine()})
        return
    print(machine_line())
    print(f"MCP tools/call round trips over stdio ({args.seed} memories seeded, {args.calls} calls per case)")
    for label, figures in summary.items():
        print(f"  {label:<16} p50 {figures['p50_ms']:>7} ms   p99 {figures['p99_ms']:>7} ms")


if __name__ == "__main__":
    main()
