"""`memesh export` of N memories to stdout, beside a plain `json.dump(bundle, sys.stdout, indent=2)` of the same bundle.

Each case is a new process against cli_start.py's database of N memories (its `--folder` is shared), run in turn
for each run so that all share the machine's load:
- `memesh export --limit N+10` with stdout a pipe (read by this script) and with stdout a file;
- `memesh export --limit N+10 -o FILE --force`;
- plain: a process that gets the same bundle through the same door (the CLI's `run_op(EXPORT)`), then writes it with
  `json.dump(bundle, sys.stdout, indent=2, ensure_ascii=False)`, to a pipe and to a file. It pays the same store
  work and none of the CLI's output path, so `memesh export ÷ plain` is what the CLI's writing costs on top.
Figures: wall median, min and max and the child's CPU median (user + system); the ratios to plain, pipe to pipe and
file to file. PYTHONUNBUFFERED is removed from the children's environment unless `--unbuffered` is given (a
person's shell does not set it; with it, every write of either side goes to the pipe at once). `--bin` compares
installs in one batch, as cli_start.py does.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from _common import emit_json, machine, machine_line, median, ms
from cli_start import BIN, build

PLAIN = """import json, sys
from memesh.app.registry import EXPORT
from memesh.transports.cli.actions.memory import run_op
bundle = run_op(EXPORT, {"limit": int(sys.argv[1])}).unwrap()
json.dump(bundle, sys.stdout, indent=2, ensure_ascii=False)
print()
"""


def run_once(command: Sequence[str], env: dict[str, str], cwd: Path, out: Path | None) -> tuple[float, float, int]:
    """Wall and child CPU seconds and the exit status; stdout to the file `out`, or to a pipe this reads."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    if out is None:
        done = subprocess.run(command, env=env, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, check=False)
    else:
        with out.open("wb") as handle:
            done = subprocess.run(command, env=env, cwd=cwd, stdout=handle, stderr=subprocess.DEVNULL, check=False)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime, done.returncode


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--n", type=int, default=10_000, help="memories in the database (default 10,000)")
    parser.add_argument("--runs", type=int, default=9, help="runs per case (default 9)")
    parser.add_argument("--bin", type=Path, action="append", help="an install's bin folder; repeat to compare")
    parser.add_argument("--folder", type=Path, help="keep the built database here and reuse it (same --n)")
    parser.add_argument("--unbuffered", action="store_true", help="keep PYTHONUNBUFFERED in the children's env")
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of a table")
    args = parser.parse_args(argv)
    installs = [path.absolute() for path in (args.bin or [BIN])]
    limit = str(args.n + 10)
    with tempfile.TemporaryDirectory(prefix="memesh-export-") as tmp:
        folder = Path(tmp) if args.folder is None else args.folder.resolve()
        env, cwd = build(folder, args.n)
        if args.unbuffered and "PYTHONUNBUFFERED" in os.environ:
            env["PYTHONUNBUFFERED"] = os.environ["PYTHONUNBUFFERED"]
        out = Path(tmp) / "out.json"
        plan: dict[str, tuple[list[str], Path | None]] = {}
        for install in installs:
            memesh, python = str(install / "memesh"), str(install / "python")
            export = [memesh, "export", "--limit", limit]
            plan[f"{install} | plain json.dump, to a pipe"] = ([python, "-c", PLAIN, limit], None)
            plan[f"{install} | memesh export, to a pipe"] = (export, None)
            plan[f"{install} | plain json.dump, to a file"] = ([python, "-c", PLAIN, limit], out)
            plan[f"{install} | memesh export, to a file"] = (export, out)
            plan[f"{install} | memesh export -o FILE"] = ([*export, "-o", str(out), "--force"], None)
        for label, (command, target) in plan.items():  # a probe and a warm-up of the file cache; not counted
            if run_once(command, env, cwd, target)[2] != 0:
                raise SystemExit(f"{label} failed")
        walls: dict[str, list[float]] = {label: [] for label in plan}
        cpus: dict[str, list[float]] = {label: [] for label in plan}
        loads = [os.getloadavg()[0]]
        for _ in range(args.runs):
            for label, (command, target) in plan.items():
                wall, cpu, _ = run_once(command, env, cwd, target)
                walls[label].append(wall)
                cpus[label].append(cpu)
            loads.append(os.getloadavg()[0])
    results: dict[str, dict[str, Any]] = {
        label: {
            "median_ms": ms(median(walls[label])),
            "min_ms": ms(min(walls[label])),
            "max_ms": ms(max(walls[label])),
            "cpu_median_ms": ms(median(cpus[label])),
        }
        for label in plan
    }
    for install in installs:
        for kind in ("pipe", "file"):
            plain = results[f"{install} | plain json.dump, to a {kind}"]
            row = results[f"{install} | memesh export, to a {kind}"]
            row["ratio"] = round(row["median_ms"] / plain["median_ms"], 2)
            row["cpu_ratio"] = round(row["cpu_median_ms"] / plain["cpu_median_ms"], 2)
    load_range = {"min": min(loads), "max": max(loads)}
    if args.json:
        emit_json(
            {
                "benchmark": "export_stdout",
                "n": args.n,
                "runs": args.runs,
                "summary": results,
                "load_average_1m": load_range,
                "machine": machine(),
            }
        )
        return 0
    print(f"memesh export of {args.n:,} memories, {args.runs} interleaved runs per case (median, min–max; CPU median)")
    print(machine_line())
    print(f"load average (1 min) during the runs: {load_range['min']:.2f}–{load_range['max']:.2f}")
    for label, row in results.items():
        ratio = f"  ×{row['ratio']:.2f} wall, ×{row['cpu_ratio']:.2f} cpu of plain" if "ratio" in row else ""
        print(
            f"  {label:72} {row['median_ms']:7.1f} ms ({row['min_ms']:.1f}–{row['max_ms']:.1f})  "
            f"cpu {row['cpu_median_ms']:6.1f} ms{ratio}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
