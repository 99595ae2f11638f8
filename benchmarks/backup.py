"""Backup and restore at scale: `memesh import` and `memesh export` of N memories, as a person runs them.

Writes a synthetic bundle of `--n` memories (a few observations and tags each, some relations, some archived), then
times, each as its own `memesh` process against a fresh database in a temporary folder:
- `memesh import bundle.json` into an empty database (one transaction for the whole bundle);
- `memesh export --limit <n+1> -o out.json` of everything;
and reports wall time, the process's peak resident memory (ru_maxrss of the child), the database size, and whether the
export holds exactly the memories imported.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from _common import emit_json, machine, machine_line

BIN = Path(sys.executable).parent
VOCABULARY = [f"w{index}" for index in range(5000)]


def bundle(n: int) -> dict[str, Any]:
    rng = random.Random(11)
    entities = []
    for index in range(n):
        entity: dict[str, Any] = {
            "name": f"m-{index}",
            "type": rng.choice(["decision", "lesson_learned", "pattern", "note"]),
            "title": f"Memory {index}",
            "namespace": rng.choice(["personal", "personal", "team", "global"]),
            "created_at": "2026-01-02 03:04:05",
            "observations": [
                " ".join(rng.choices(VOCABULARY, k=rng.randint(10, 30))) for _ in range(rng.randint(1, 4))
            ],
            "tags": [f"project:p{index % 50}", f"topic:t{index % 200}"],
            "relations": [{"to": f"m-{index - 1}", "type": "related-to"}] if index and index % 10 == 0 else [],
        }
        if index % 25 == 0:
            entity["status"] = "archived"
        entities.append(entity)
    return {"version": "3.1.0", "exported_at": "2026-01-02T03:04:05.000Z", "entity_count": n, "entities": entities}


def run(command: list[str], env: dict[str, str], cwd: Path) -> tuple[float, float, subprocess.CompletedProcess[str]]:
    """Wall seconds and peak resident memory (MB) of one child process, measured by /usr/bin/time."""
    started = time.perf_counter()
    done = subprocess.run(
        ["/usr/bin/time", "-f", "maxrss_kb=%M", *command], env=env, cwd=cwd, capture_output=True, text=True, check=False
    )
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command[:2])} failed ({done.returncode}): {done.stderr[-500:]}")
    peak_kb = next(
        int(line.split("=")[1]) for line in reversed(done.stderr.splitlines()) if line.startswith("maxrss_kb=")
    )
    return seconds, peak_kb / 1024, done


def measure(n: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        source = root / "bundle.json"
        source.write_text(json.dumps(bundle(n)))
        env = {**os.environ, "MEMESH_DB_PATH": str(root / "k.db"), "MEMESH_DIR": str(root / "home")}
        import_seconds, import_rss, imported = run([str(BIN / "memesh"), "import", str(source)], env, root)
        export_seconds, export_rss, _ = run(
            [str(BIN / "memesh"), "export", "--limit", str(n + 1), "-o", str(root / "out.json")], env, root
        )
        exported = json.loads((root / "out.json").read_text())
        return {
            "n": n,
            "bundle_mb": round(source.stat().st_size / 1e6, 1),
            "database_mb": round((root / "k.db").stat().st_size / 1e6, 1),
            "import_seconds": round(import_seconds, 2),
            "import_peak_rss_mb": round(import_rss, 1),
            "export_seconds": round(export_seconds, 2),
            "export_peak_rss_mb": round(export_rss, 1),
            "round_trip_complete": exported["entity_count"] == n and not exported["truncated"],
            "import_summary": imported.stdout.splitlines()[0] if imported.stdout else "",
        }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, nargs="+", default=[10_000], help="memories per run (e.g. 10000 100000)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args()
    runs = [measure(n) for n in args.n]
    if args.json:
        emit_json({"summary": runs, "machine": machine()})
        return
    print(machine_line())
    for figures in runs:
        print(
            f"{figures['n']:>8} memories: bundle {figures['bundle_mb']} MB, database {figures['database_mb']} MB; "
            f"import {figures['import_seconds']} s (peak {figures['import_peak_rss_mb']} MB), "
            f"export {figures['export_seconds']} s (peak {figures['export_peak_rss_mb']} MB), "
            f"round trip complete: {figures['round_trip_complete']}"
        )


if __name__ == "__main__":
    main()
