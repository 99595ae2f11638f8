"""Start-up: how long a cold command takes, as an agent's hook or a person at a shell pays for it.

Median (and min/max) wall time over repeated runs, each a new process, against a database in a temporary folder
(MEMESH_DIR / MEMESH_DB_PATH / HOME point there, so nothing touches the real ~/.memesh):
- `python -c pass` — the floor any Python command pays;
- `memesh recall x --json` and `memesh remember "<text>" --json` (the console script in .venv/bin), skipped with a
  message when the CLI is not installed or cannot start yet;
- the MCP server: spawn `memesh-mcp` through the mcp client (stdio), initialize, first tools/list answered, then a
  first tools/call (recall); and the same for the server with the SDK reading stdin from the start (no early
  answers), spawned in turn with it; skipped with a message when the server is absent.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from _common import emit_json, machine, machine_line, median, ms

BIN = Path(sys.executable).parent


def environment(folder: Path) -> dict[str, str]:
    home = folder / "home"
    return {
        **os.environ,
        "HOME": str(home),
        "MEMESH_DIR": str(home / ".memesh"),
        "MEMESH_DB_PATH": str(home / ".memesh" / "knowledge-graph.db"),
    }


def run_once(command: Sequence[str], env: dict[str, str], cwd: Path) -> tuple[float, subprocess.CompletedProcess[str]]:
    started = time.perf_counter()
    done = subprocess.run(command, env=env, cwd=cwd, capture_output=True, text=True, check=False)
    return time.perf_counter() - started, done


def figures(samples: Sequence[float]) -> dict[str, Any]:
    return {"median_ms": ms(median(samples)), "min_ms": ms(min(samples)), "max_ms": ms(max(samples))}


def time_command(label: str, commands: Sequence[Sequence[str]], env: dict[str, str], cwd: Path) -> dict[str, Any]:
    """Run each command once as a probe (a failure skips the case, with its message), then time them all."""
    _, probe = run_once(commands[0], env, cwd)
    if probe.returncode != 0:
        reason = (probe.stderr.strip().splitlines() or [f"exit {probe.returncode}"])[-1]
        return {"skipped": f"{label} does not run yet: {reason[:200]}"}
    samples = []
    for command in commands:
        seconds, done = run_once(command, env, cwd)
        if done.returncode != 0:
            return {"skipped": f"{label} failed during the runs: exit {done.returncode}"}
        samples.append(seconds)
    return figures(samples)


async def mcp_first_answers(command: Sequence[str], env: dict[str, str], cwd: Path) -> tuple[float, float]:
    """Seconds from spawning the server to its first tools/list answer, and to its first tools/call answer."""
    from mcp import ClientSession, StdioServerParameters, stdio_client

    parameters = StdioServerParameters(command=command[0], args=list(command[1:]), env=env, cwd=str(cwd))
    started = time.perf_counter()
    async with stdio_client(parameters) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        tools = await session.list_tools()
        listed = time.perf_counter() - started
        called = await session.call_tool("recall", {"query": "x"})
        answered = time.perf_counter() - started
    if not tools.tools or called.is_error:
        raise RuntimeError("tools/list answered with no tools, or recall failed")
    return listed, answered


# The server as installed (memesh-mcp: early answers while the SDK loads), and the same server with the SDK reading
# stdin itself from the start, as it did before the early answers (docs/adr/0003-start-up.md).
MCP_SERVERS = {
    "memesh-mcp": [str(BIN / "memesh-mcp")],
    "memesh-mcp, SDK only": [sys.executable, "-c", "from memesh.transports.mcp import server; server.run()"],
}


def time_mcp(runs: int, env: dict[str, str], cwd: Path) -> dict[str, dict[str, Any]]:
    """Both ways of serving, spawned in turn for each run so that they share the machine's load."""
    if not (BIN / "memesh-mcp").exists():
        return {"memesh-mcp": {"skipped": "memesh-mcp is not installed"}}
    try:
        import mcp  # noqa: F401 - only to tell "no client library" from "server does not start"
    except ImportError:
        return {"memesh-mcp": {"skipped": "the mcp client library is not installed"}}
    samples: dict[str, list[tuple[float, float]]] = {name: [] for name in MCP_SERVERS}
    for _ in range(runs + 1):  # the first spawn is a probe and a warm-up of the file cache; not counted
        for name, command in MCP_SERVERS.items():
            try:
                samples[name].append(asyncio.run(asyncio.wait_for(mcp_first_answers(command, env, cwd), timeout=60)))
            except Exception as exc:  # any failure to start is reported, not raised
                return {name: {"skipped": f"{name} does not answer yet: {type(exc).__name__}: {exc}"[:240]}}
    rows: dict[str, dict[str, Any]] = {}
    for name, timed in samples.items():
        rows[f"{name}: spawn to first tools/list"] = figures([listed for listed, _ in timed[1:]])
        rows[f"{name}: spawn to first tools/call"] = figures([answered for _, answered in timed[1:]])
    return rows


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--runs", type=int, default=15, help="runs per command (default 15)")
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of a table")
    parser.add_argument("--only", choices=("cli", "mcp"), help="time only the CLI commands or only the MCP server")
    args = parser.parse_args(argv)
    results: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="memesh-startup-") as folder:
        cwd = Path(folder)  # never the repository root, where the bare memesh/ folder would shadow the install
        env = environment(cwd)
        results["python -c pass"] = time_command("python", [[sys.executable, "-c", "pass"]] * args.runs, env, cwd)
        cli = BIN / "memesh"
        if args.only == "mcp":
            pass
        elif cli.exists() and importlib.util.find_spec("memesh.transports.cli.app") is None:
            results["memesh (CLI)"] = {
                "skipped": "the console script exists but memesh.transports.cli.app does not yet"
            }
        elif cli.exists():
            recall = [[str(cli), "recall", "x", "--json"]] * args.runs
            remember = [[str(cli), "remember", f"startup note number {i}", "--json"] for i in range(args.runs)]
            results["memesh recall x --json"] = time_command("memesh recall", recall, env, cwd)
            results["memesh remember <text> --json"] = time_command("memesh remember", remember, env, cwd)
        else:
            results["memesh (CLI)"] = {"skipped": f"no console script at {cli}"}
        if args.only != "cli":
            results.update(time_mcp(args.runs, env, cwd))
    if args.json:
        emit_json({"benchmark": "startup", "runs": args.runs, "summary": results, "machine": machine()})
        return 0
    print(f"Cold start, {args.runs} runs each (median, min–max)")
    print(machine_line())
    for label, row in results.items():
        if "skipped" in row:
            print(f"  {label:50} skipped: {row['skipped']}")
        else:
            print(f"  {label:50} {row['median_ms']:8.1f} ms  ({row['min_ms']:.1f}–{row['max_ms']:.1f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
