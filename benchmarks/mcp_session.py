"""MCP session: a whole stdio session as an agent starts it, at 10k memories, beside `python -c pass` (issue 22).

A database of `--n` memories (default 10,000) is built once in a temporary folder. Then, interleaved run by run so
that every case shares the machine's load:
- `python -c pass`, the floor the goals are ratios to;
- piped whole: initialize, notifications/initialized, tools/list and one recall written at once, then end of input
  (`printf '…' | memesh-mcp`); the figure is spawn → exit, with the child's CPU (user + system, os.wait4);
- first tool call: the client waits for each answer before it writes the next request, as the mcp SDK's client
  does; the figures are spawn → tools/list answered and spawn → the recall answered.
Each server command is a case of its own (`--server NAME=COMMAND`, repeatable; default: the installed memesh-mcp
and the server with the SDK reading stdin from the start), so a before/after pair runs in the same batch, e.g.
`--server before=/work/main/.venv/bin/memesh-mcp --server after=.venv/bin/memesh-mcp`.
Goals (issue 22): piped whole ≤ 20× the floor, first tool call answered ≤ 20× the floor after spawn.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from _common import Tools, emit_json, fresh_store, machine, machine_line, median

BIN = Path(sys.executable).parent
KINDS = ("decision", "lesson_learned", "pattern", "note", "commit")
LEGACY = "2025-11-25"
OPENING: list[dict[str, Any]] = [
    {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {"protocolVersion": LEGACY, "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}},
    },
    {"jsonrpc": "2.0", "method": "notifications/initialized"},
    {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
]
RECALL: dict[str, Any] = {
    "jsonrpc": "2.0",
    "id": 3,
    "method": "tools/call",
    "params": {"name": "recall", "arguments": {"query": "cache layer topic"}},
}
DEFAULT_SERVERS = {
    "memesh-mcp": [str(BIN / "memesh-mcp")],
    "SDK only": [sys.executable, "-c", "from memesh.transports.mcp import server; server.run()"],
}


def build(folder: Path, n: int) -> dict[str, str]:
    home = folder / "home"
    env = {
        **os.environ,
        "HOME": str(home),
        "MEMESH_DIR": str(home / ".memesh"),
        "MEMESH_DB_PATH": str(home / ".memesh" / "knowledge-graph.db"),
        "MEMESH_UPDATE_CHECK": "0",
        "MEMESH_HOOK_SERVER": "0",
    }
    for name in ("CLAUDE_CODE_SESSION_ID", "MEMESH_RECIPIENT", "PYTHONUNBUFFERED"):
        env.pop(name, None)
    store = fresh_store(home / ".memesh")
    tools = Tools(store, host="bench")
    started = time.perf_counter()
    with store.transaction():
        for i in range(n):
            tools(
                "remember",
                {
                    "name": f"memory-{i}",
                    "type": KINDS[i % len(KINDS)],
                    "title": f"Memory number {i} about topic {i % 40}",
                    "observations": [f"Observation {i}: the cache layer keeps {i % 97} entries warm.", "Second."],
                    "tags": [f"project:p{i % 7}", f"topic:t{i % 40}"],
                },
            )
    store.close()
    print(f"built {n} memories in {time.perf_counter() - started:.1f} s", file=sys.stderr)
    return env


def _lines(messages: Sequence[dict[str, Any]]) -> bytes:
    return b"".join(json.dumps(message).encode() + b"\n" for message in messages)


def _cpu_ms(usage: Any) -> float:
    return float(usage.ru_utime + usage.ru_stime) * 1000


def floor(env: dict[str, str], cwd: Path) -> tuple[float, float]:
    started = time.perf_counter()
    process = subprocess.Popen([sys.executable, "-c", "pass"], env=env, cwd=cwd)
    _, _, usage = os.wait4(process.pid, 0)
    process.returncode = 0
    return time.perf_counter() - started, _cpu_ms(usage)


def piped(command: Sequence[str], env: dict[str, str], cwd: Path) -> tuple[float, float]:
    """Spawn → exit with the whole session on stdin, and the child's CPU; raises unless the recall was answered."""
    started = time.perf_counter()
    process = subprocess.Popen(
        command, env=env, cwd=cwd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
    )
    assert process.stdin is not None and process.stdout is not None
    process.stdin.write(_lines([*OPENING, RECALL]))
    process.stdin.close()
    out = process.stdout.read()
    _, status, usage = os.wait4(process.pid, 0)
    process.returncode = 0
    seconds = time.perf_counter() - started
    answers = {message.get("id"): message for message in map(json.loads, out.splitlines())}
    if status != 0 or "result" not in answers.get(3, {}) or answers[3]["result"].get("isError"):
        raise RuntimeError(f"{command[0]}: the piped session was not answered (status {status}): {out[-300:]!r}")
    return seconds, _cpu_ms(usage)


def _answer(stdout: Any, request_id: int) -> dict[str, Any]:
    while True:
        line = stdout.readline()
        if not line:
            raise RuntimeError(f"the server ended before answering request {request_id}")
        message: dict[str, Any] = json.loads(line)
        if message.get("id") == request_id:
            return message


def interactive(command: Sequence[str], env: dict[str, str], cwd: Path) -> tuple[float, float, float]:
    """Spawn → tools/list answered, spawn → the recall answered (each request written after the answer before it),
    and the child's CPU for the whole session."""
    started = time.perf_counter()
    process = subprocess.Popen(
        command, env=env, cwd=cwd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
    )
    assert process.stdin is not None and process.stdout is not None
    process.stdin.write(_lines(OPENING[:1]))
    process.stdin.flush()
    _answer(process.stdout, 1)
    process.stdin.write(_lines(OPENING[1:]))
    process.stdin.flush()
    _answer(process.stdout, 2)
    listed = time.perf_counter() - started
    process.stdin.write(_lines([RECALL]))
    process.stdin.flush()
    called = _answer(process.stdout, 3)
    answered = time.perf_counter() - started
    process.stdin.close()
    process.stdout.read()
    _, _, usage = os.wait4(process.pid, 0)
    process.returncode = 0
    if "result" not in called or called["result"].get("isError"):
        raise RuntimeError(f"{command[0]}: the recall failed: {called}")
    return listed, answered, _cpu_ms(usage)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--n", type=int, default=10_000, help="memories in the database (default 10,000)")
    parser.add_argument("--runs", type=int, default=9, help="runs per case (default 9)")
    parser.add_argument("--server", action="append", default=[], help="NAME=COMMAND, a server to time (repeatable)")
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of a table")
    args = parser.parse_args(argv)
    servers = {name: shlex.split(command) for name, _, command in (s.partition("=") for s in args.server)}
    servers = servers or DEFAULT_SERVERS
    cases: dict[str, list[float]] = {"floor: wall": [], "floor: CPU": []}
    for name in servers:
        for what in ("piped whole: wall", "piped whole: CPU", "tools/list answered", "first tools/call answered"):
            cases[f"{name}: {what}"] = []
    loads = []
    with tempfile.TemporaryDirectory(prefix="memesh-mcp-session-") as folder:
        cwd = Path(folder)
        env = build(cwd, args.n)
        for run in range(args.runs + 1):  # the first round warms the file cache: not counted
            loads.append(float(Path("/proc/loadavg").read_text().split()[0]) if Path("/proc/loadavg").exists() else 0)
            timed: dict[str, float] = {}
            timed["floor: wall"], timed["floor: CPU"] = floor(env, cwd)
            for name, command in servers.items():
                wall, cpu = piped(command, env, cwd)
                timed[f"{name}: piped whole: wall"], timed[f"{name}: piped whole: CPU"] = wall, cpu
                listed, answered, _ = interactive(command, env, cwd)
                timed[f"{name}: tools/list answered"] = listed
                timed[f"{name}: first tools/call answered"] = answered
            if run:
                for key, value in timed.items():
                    cases[key].append(value)
    results: dict[str, dict[str, Any]] = {}
    base_wall = median(cases["floor: wall"]) * 1000
    base_cpu = median(cases["floor: CPU"])
    for key, samples in cases.items():
        cpu = key.endswith("CPU")
        scale = 1 if cpu else 1000
        results[key] = {
            "median_ms": round(median(samples) * scale, 1),
            "min_ms": round(min(samples) * scale, 1),
            "max_ms": round(max(samples) * scale, 1),
            "x_floor": round(median(samples) * scale / (base_cpu if cpu else base_wall), 1),
        }
    load = {"load_1m_min": min(loads), "load_1m_max": max(loads)}
    if args.json:
        emit_json(
            {
                "benchmark": "mcp_session",
                "n": args.n,
                "runs": args.runs,
                "summary": results,
                **load,
                "machine": machine(),
            }
        )
        return 0
    print(f"MCP session at {args.n:,} memories, {args.runs} interleaved runs (median, min–max, × the floor)")
    print(f"{machine_line()}; load {load['load_1m_min']}–{load['load_1m_max']} during the runs")
    for key, r in results.items():
        print(f"  {key:55} {r['median_ms']:8.1f} ms  ({r['min_ms']:.1f}–{r['max_ms']:.1f})  {r['x_floor']:5.1f}×")
    return 0


if __name__ == "__main__":
    sys.exit(main())
