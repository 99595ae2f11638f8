"""The long-running servers' memory and their first MCP answers (issue 36): `memesh-mcp` on stdio and `memesh serve`.

A database of `--n` memories (default 10,000) is built once. Then, `--runs` times each (interleaved):
- stdio: spawn `memesh-mcp`, the opening as a client makes it (initialize, initialized, tools/list, each written
  after the answer before it), `--think` seconds of quiet (a model choosing its first call), then a recall; the
  figures are spawn → tools/list answered, the recall's own answer time after the quiet, then a `ping` (a request
  only the SDK answers) and its answer time, and the server's resident memory (VmRSS) after the recall and after the
  ping, with its peak (VmHWM);
- HTTP: spawn `memesh serve` on a free loopback port, wait for `/v1/health`, `--think` seconds of quiet, the
  resident memory of the whole process tree (granian's main and worker), then an MCP initialize at `/mcp`, its
  answer time, and the memory again.
Resident memory is read from /proc; times are wall clock (noisy on a shared machine: the load is printed).
"""

from __future__ import annotations

import argparse
import json
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from _common import emit_json, machine, machine_line, median
from mcp_session import OPENING, RECALL, _answer, _lines, build

BIN = Path(sys.executable).parent
PING = {"jsonrpc": "2.0", "id": 4, "method": "ping"}


def _status(pid: int, key: str) -> int:
    """A /proc/<pid>/status figure in kB (0 once the process is gone)."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith(f"{key}:"):
                return int(line.split()[1])
    except OSError:
        return 0
    return 0


def _tree(pid: int) -> list[int]:
    """The process and its descendants."""
    found = [pid]
    for child in Path(f"/proc/{pid}/task/{pid}/children").read_text().split():
        found += _tree(int(child))
    return found


def _tree_rss_mb(pid: int) -> float:
    return sum(_status(member, "VmRSS") for member in _tree(pid)) / 1024


def stdio(env: dict[str, str], cwd: Path, think: float) -> dict[str, float]:
    started = time.perf_counter()
    process = subprocess.Popen(
        [str(BIN / "memesh-mcp")], env=env, cwd=cwd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )  # fmt: skip
    assert process.stdin is not None and process.stdout is not None
    process.stdin.write(_lines(OPENING[:1]))
    process.stdin.flush()
    _answer(process.stdout, 1)
    process.stdin.write(_lines(OPENING[1:]))
    process.stdin.flush()
    _answer(process.stdout, 2)
    listed = time.perf_counter() - started
    time.sleep(think)
    asked = time.perf_counter()
    process.stdin.write(_lines([RECALL]))
    process.stdin.flush()
    called = _answer(process.stdout, 3)
    recall = time.perf_counter() - asked
    if "result" not in called or called["result"].get("isError"):
        raise RuntimeError(f"the recall failed: {called}")
    rss_after_recall = _status(process.pid, "VmRSS") / 1024
    asked = time.perf_counter()
    process.stdin.write(_lines([PING]))
    process.stdin.flush()
    _answer(process.stdout, 4)
    ping = time.perf_counter() - asked
    rss_after_ping = _status(process.pid, "VmRSS") / 1024
    peak = _status(process.pid, "VmHWM") / 1024
    process.stdin.close()
    process.stdout.read()
    process.wait(timeout=60)
    return {
        "tools_list_ms": listed * 1000,
        "recall_after_quiet_ms": recall * 1000,
        "rss_after_recall_mb": rss_after_recall,
        "ping_ms": ping * 1000,
        "rss_after_ping_mb": rss_after_ping,
        "peak_rss_mb": peak,
    }


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _post(url: str, body: dict[str, Any], headers: dict[str, str]) -> bytes:
    request = urllib.request.Request(url, data=json.dumps(body).encode(), headers=headers, method="POST")
    with urllib.request.urlopen(request, timeout=60) as answer:
        return bytes(answer.read())


def http(env: dict[str, str], cwd: Path, think: float) -> dict[str, float]:
    port = _free_port()
    base = f"http://127.0.0.1:{port}"
    process = subprocess.Popen(
        [str(BIN / "memesh"), "serve", "--port", str(port)], env=env, cwd=cwd, stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(f"{base}/v1/health", timeout=5):
                    break
            except OSError:
                if time.monotonic() > deadline or process.poll() is not None:
                    raise RuntimeError("memesh serve did not answer /v1/health") from None
                time.sleep(0.05)
        time.sleep(think)
        idle = _tree_rss_mb(process.pid)
        asked = time.perf_counter()
        headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
        _post(f"{base}/mcp", OPENING[0], headers)
        initialize = time.perf_counter() - asked
        after = _tree_rss_mb(process.pid)
    finally:
        process.terminate()
        process.wait(timeout=30)
    return {"rss_idle_mb": idle, "mcp_initialize_ms": initialize * 1000, "rss_after_mcp_mb": after}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--n", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--think", type=float, default=2.0, help="seconds of quiet before the first call (2)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="memesh-server-memory-") as scratch:
        folder = Path(scratch)
        env = build(folder, args.n)
        env.pop("MEMESH_HOOK_SERVER", None)  # memesh-mcp serves hooks, as in a session
        samples: dict[str, dict[str, list[float]]] = {"stdio": {}, "http": {}}
        for _ in range(args.runs):
            for name, case in (("stdio", stdio), ("http", http)):
                for figure, value in case(env, folder, args.think).items():
                    samples[name].setdefault(figure, []).append(value)
    load = Path("/proc/loadavg").read_text().split()[:3]
    figures = {name: {figure: round(median(v), 1) for figure, v in row.items()} for name, row in samples.items()}
    if args.json:
        emit_json({"machine": machine(), "load": load, "n": args.n, "think_s": args.think, "figures": figures})
        return 0
    print(machine_line())
    print(f"n = {args.n:,}, {args.runs} runs, {args.think} s of quiet before the first call, load {' '.join(load)}")
    for name, row in figures.items():
        print(f"{name}: " + ", ".join(f"{figure} {value}" for figure, value in row.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
