"""Start-up: how long a cold command takes, as an agent's hook or a person at a shell pays for it.

Median (and min/max) wall time over repeated runs, each a new process, against a database in a temporary folder
(MEMESH_DIR / MEMESH_DB_PATH / HOME point there, so nothing touches the real ~/.memesh):
- `python -c pass` — the floor any Python command pays;
- `memesh recall x --json` and `memesh remember "<text>" --json` (the console script in .venv/bin), skipped with a
  message when the CLI is not installed or cannot start yet;
- the MCP server: spawn `memesh-mcp` through the mcp client (stdio), initialize, first tools/list answered; skipped
  with a message when the server is absent.
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


async def mcp_first_list(env: dict[str, str], cwd: Path) -> float:
    """Seconds from spawning memesh-mcp to its first tools/list answer."""
    from mcp import ClientSession, StdioServerParameters, stdio_client

    parameters = StdioServerParameters(command=str(BIN / "memesh-mcp"), args=[], env=env, cwd=str(cwd))
    started = time.perf_counter()
    async with stdio_client(parameters) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        tools = await session.list_tools()
        elapsed = time.perf_counter() - started
    if not tools.tools:
        raise RuntimeError("tools/list answered with no tools")
    return elapsed


def time_mcp(runs: int, env: dict[str, str], cwd: Path) -> dict[str, Any]:
    if not (BIN / "memesh-mcp").exists():
        return {"skipped": "memesh-mcp is not installed"}
    if importlib.util.find_spec("memesh.transports.mcp.server") is None:
        return {"skipped": "memesh-mcp is installed but memesh.transports.mcp.server does not exist yet"}
    try:
        import mcp  # noqa: F401 - only to tell "no client library" from "server does not start"
    except ImportError:
        return {"skipped": "the mcp client library is not installed"}
    samples = []
    for _ in range(runs + 1):  # the first spawn is a probe and a warm-up of the file cache; not counted
        try:
            samples.append(asyncio.run(asyncio.wait_for(mcp_first_list(env, cwd), timeout=30)))
        except Exception as exc:  # any failure to start is reported, not raised: the server is written in parallel
            return {"skipped": f"memesh-mcp does not answer tools/list yet: {type(exc).__name__}: {exc}"[:240]}
    return figures(samples[1:])


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
            results["memesh-mcp: spawn to first tools/list"] = time_mcp(args.runs, env, cwd)
    if args.json:
        emit_json({"benchmark": "startup", "runs": args.runs, "summary": results, "machine": machine()})
        return 0
    print(f"Cold start, {args.runs} runs each (median, min–max)")
    print(machine_line())
    for label, row in results.items():
        if "skipped" in row:
            print(f"  {label:40} skipped: {row['skipped']}")
        else:
            print(f"  {label:40} {row['median_ms']:8.1f} ms  ({row['min_ms']:.1f}–{row['max_ms']:.1f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
