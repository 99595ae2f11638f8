"""CLI start-up at N memories: each command as the whole process a person or an agent waits for.

Every case is a new process of the installed console script (`.venv/bin/memesh`, or each `--bin` given), against a
database of N memories in a folder of its own (HOME / MEMESH_DIR / MEMESH_DB_PATH point there, so nothing touches
the real ~/.memesh), run from a git repository that is the memories' project:
- `python -c pass` of the same interpreter: the floor every ratio is taken to;
- `memesh recall auth --json`, `memesh remember "<text>" --json`, `memesh briefing`;
- `memesh recall --help` and `memesh --help` (the whole tree: allowed to pay the full price).
Runs are interleaved case by case (and install by install with `--bin`), so every case shares the machine's load.
Figures: wall median, min and max, the child's CPU (user + system) median, and each median as a ratio to the floor.
`--importtime` lists the costliest imports of `memesh recall auth --json` per install.

Compare two installs in one batch, e.g. main's and a branch's:
    .venv/bin/python benchmarks/cli_start.py --bin /work/main/.venv/bin --bin .venv/bin
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

from _common import Tools, emit_json, fresh_store, machine, machine_line, median, ms

from memesh.adapters.project_git import project_for

BIN = Path(sys.executable).parent
KINDS = ("decision", "lesson_learned", "pattern", "note")


def build(folder: Path, n: int) -> tuple[dict[str, str], Path]:
    """N memories, a tenth of them about auth, a third in the repository's project; the environment pointing at
    them and the repository to run from."""
    home = folder / "home"
    env = {
        **os.environ,
        "HOME": str(home),
        "MEMESH_DIR": str(home / ".memesh"),
        "MEMESH_DB_PATH": str(home / ".memesh" / "knowledge-graph.db"),
    }
    # PYTHONUNBUFFERED: a person's shell does not set it (with it, every print is its own write).
    for name in ("MEMESH_BRIEFING", "MEMESH_RECALL_MODE", "CLAUDECODE", "PYTHONUNBUFFERED"):
        env.pop(name, None)
    project_dir = folder / "repo"
    stamp = folder / f"built-{n}"
    if stamp.exists():
        return env, project_dir
    project_dir.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(project_dir)], check=True)
    project = project_for(str(project_dir))
    store = fresh_store(home / ".memesh")
    tools = Tools(store, host="bench")
    started = time.perf_counter()
    with store.transaction():
        for i in range(n):
            topic = "auth token refresh" if i % 10 == 0 else f"cache layer {i % 97}"
            tags = [f"project:{project}" if i % 3 == 0 else f"project:other-{i % 7}", f"topic:t{i % 40}"]
            tools(
                "remember",
                {
                    "name": f"memory-{i}",
                    "type": KINDS[i % len(KINDS)],
                    "title": f"Memory {i} about the {topic}",
                    "observations": [f"Observation {i}: the {topic} keeps {i % 89} entries warm.", "Second one."],
                    "tags": tags,
                },
            )
    store.close()
    print(f"built {n} memories in {time.perf_counter() - started:.1f} s", file=sys.stderr)
    stamp.write_text("")
    return env, project_dir


# `memesh recall auth --json` with every command line going to the Cyclopts tree, each command registered lazily
# (the design beside the front; skipped for an install that has no tree module).
THROUGH_THE_TREE = """import sys
from memesh.transports.cli import tree
from memesh.transports.cli.terminal import terminal_safe
with terminal_safe():
    sys.exit(tree.run(["recall", "auth", "--json"]))
"""


def cases(bin_dir: Path) -> dict[str, list[str]]:
    memesh = str(bin_dir / "memesh")
    return {
        "memesh recall auth --json": [memesh, "recall", "auth", "--json"],
        "  the same through the lazy Cyclopts tree": [str(bin_dir / "python"), "-c", THROUGH_THE_TREE],
        "memesh remember <text> --json": [memesh, "remember", "a note about the start-up of the CLI", "--json"],
        "memesh briefing": [memesh, "briefing"],
        "memesh recall --help": [memesh, "recall", "--help"],
        "memesh --help": [memesh, "--help"],
    }


def run_once(command: Sequence[str], env: dict[str, str], cwd: Path) -> tuple[float, float, int]:
    """Wall seconds, CPU seconds of the child (user + system) and its exit status."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(command, env=env, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime, done.returncode


def figures(walls: Sequence[float], cpus: Sequence[float]) -> dict[str, float]:
    return {
        "median_ms": ms(median(walls)),
        "min_ms": ms(min(walls)),
        "max_ms": ms(max(walls)),
        "cpu_median_ms": ms(median(cpus)),
    }


def import_profile(bin_dir: Path, env: dict[str, str], cwd: Path) -> list[tuple[str, float]]:
    """The costliest top-level imports of `memesh recall auth --json`, in ms (python -X importtime, cumulative)."""
    python = bin_dir / "python"
    code = "import sys; from memesh.transports.cli.app import main; sys.exit(main(['recall', 'auth', '--json']))"
    done = subprocess.run(
        [str(python), "-X", "importtime", "-c", code], env=env, cwd=cwd, capture_output=True, text=True, check=False
    )
    rows = []
    for line in done.stderr.splitlines():
        parts = line.removeprefix("import time:").split("|")
        if len(parts) == 3 and parts[1].strip().isdigit() and not parts[2].startswith("  "):
            rows.append((parts[2].strip(), int(parts[1]) / 1000))
    return sorted(rows, key=lambda row: -row[1])[:12]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--n", type=int, default=10_000, help="memories in the database (default 10,000)")
    parser.add_argument("--runs", type=int, default=15, help="runs per case (default 15)")
    parser.add_argument(
        "--bin",
        type=Path,
        action="append",
        help="a folder holding a memesh console script and its python; repeat to compare installs (default: this one)",
    )
    parser.add_argument("--folder", type=Path, help="keep the built database here and reuse it (same --n)")
    parser.add_argument("--importtime", action="store_true", help="also list the top imports of recall")
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of a table")
    args = parser.parse_args(argv)
    installs = [path.absolute() for path in (args.bin or [BIN])]
    with tempfile.TemporaryDirectory(prefix="memesh-cli-start-") as tmp:
        folder = Path(tmp) if args.folder is None else args.folder.resolve()
        env, cwd = build(folder, args.n)
        plan: dict[str, list[str]] = {}
        for install in installs:
            plan[f"{install} | python -c pass"] = [str(install / "python"), "-c", "pass"]
            plan.update({f"{install} | {label}": command for label, command in cases(install).items()})
        for label, command in list(plan.items()):  # a probe and a warm-up of the file cache; not counted
            wall, _, status = run_once(command, env, cwd)
            if status != 0:
                print(f"skipped: {label} exited {status}", file=sys.stderr)
                del plan[label]
        walls: dict[str, list[float]] = {label: [] for label in plan}
        cpus: dict[str, list[float]] = {label: [] for label in plan}
        loads = [os.getloadavg()[0]]
        for _ in range(args.runs):
            for label, command in plan.items():
                wall, cpu, _ = run_once(command, env, cwd)
                walls[label].append(wall)
                cpus[label].append(cpu)
            loads.append(os.getloadavg()[0])
        results = {label: figures(walls[label], cpus[label]) for label in plan}
        for install in installs:
            floor = results[f"{install} | python -c pass"]
            for label in plan:
                if label.startswith(f"{install} | "):
                    row = results[label]
                    row["ratio"] = round(row["median_ms"] / floor["median_ms"], 2)
                    row["cpu_ratio"] = round(row["cpu_median_ms"] / floor["cpu_median_ms"], 2)
        profiles = {str(install): import_profile(install, env, cwd) for install in installs} if args.importtime else {}
    load_range = {"min": min(loads), "max": max(loads)}
    if args.json:
        emit_json(
            {
                "benchmark": "cli_start",
                "n": args.n,
                "runs": args.runs,
                "summary": results,
                "load_average_1m": load_range,
                "importtime": profiles,
                "machine": machine(),
            }
        )
        return 0
    print(f"CLI start-up at {args.n:,} memories, {args.runs} interleaved runs per case (median, min–max; CPU median)")
    print(machine_line())
    print(f"load average (1 min) during the runs: {load_range['min']:.2f}–{load_range['max']:.2f}")
    for label, row in results.items():
        print(
            f"  {label:78} {row['median_ms']:7.1f} ms ({row['min_ms']:.1f}–{row['max_ms']:.1f})  "
            f"cpu {row['cpu_median_ms']:6.1f} ms  ×{row['ratio']:.2f} wall, ×{row['cpu_ratio']:.2f} cpu of the floor"
        )
    for install, rows in profiles.items():
        print(f"top imports of recall ({install}):")
        for name, spent in rows:
            print(f"  {name:40} {spent:7.1f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
