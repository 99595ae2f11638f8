"""Curation at scale: `work_package` prepare over 10k memories (digest) and over a 256-transcript directory.

Digest: a fresh database of `--n` memories (10k by default), every one a digest-type capture of the last 56 days,
tagged for one project (the worst case: prepare reads and groups them all; every ISO week is then over 100 sources,
so none is offered) and, separately, spread over 50 projects of n/50 (the usual case: one package comes back).
Transcript: 256 Claude Code session files for one workspace (~60 KB each, under the 16 MiB scan cap), all modified
in the last 3 days; prepare scans them all and packages the newest.

Each prepare is called as a transport calls it (memesh.app.dispatch.call), `--runs` times; the script prints the
median and worst wall time and the peak Python memory one prepare allocates (tracemalloc), and the process's peak
resident memory at the end.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import tempfile
import time
import tracemalloc
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from _common import call, emit_json, machine, machine_line, median, ms

from memesh.adapters.project_git import project_for
from memesh.adapters.transcripts import slug
from memesh.context import CallContext
from memesh.model import EntityWrite, sqlite_time
from memesh.store.sqlite import SqliteStore, open_store

TYPES = ("commit", "session_keypoint", "session-insight", "workflow_checkpoint", "weekly_summary")


def seed(store: SqliteStore, n: int, projects: int, now: datetime) -> None:
    with store.transaction():
        for index in range(n):
            created = now - timedelta(minutes=(index * 55 * 24 * 60) // n)
            store.save(
                EntityWrite(
                    entity_id=None,
                    name=f"capture-{index}",
                    type=TYPES[index % len(TYPES)],
                    title=None,
                    namespace="personal",
                    status="active",
                    metadata={"signal_score": 0.4},
                    observations=(f"fix: change number {index} to the parser and its tests",),
                    tags=(f"project:p{index % projects}", "commit"),
                    created_at=sqlite_time(created),
                )
            )


def timed(runs: int, action: Callable[[], Any]) -> dict[str, Any]:
    seconds: list[float] = []
    peak = 0
    answer: Any = None
    for _ in range(runs):
        tracemalloc.start()
        started = time.perf_counter()
        answer = action()
        seconds.append(time.perf_counter() - started)
        peak = max(peak, tracemalloc.get_traced_memory()[1])
        tracemalloc.stop()
    return {
        "median_ms": ms(median(seconds)),
        "max_ms": ms(max(seconds)),
        "peak_python_mib": round(peak / 2**20, 2),
        "status": answer.unwrap()["status"],
    }


def digest(folder: Path, n: int, projects: int, runs: int) -> dict[str, Any]:
    now = datetime.now(UTC)
    store = open_store(folder / f"digest-{projects}.db")
    seed(store, n, projects, now)
    ctx = CallContext(source_host="bench", agent_view=True, now=now)
    prepare = {"action": "prepare", "project": "p0", "kind": "digest"}
    result = timed(runs, lambda: call("work_package", store, prepare, ctx))
    store.close()
    return {"memories": n, "projects": projects, "candidates_in_project": n // projects, **result}


def transcripts(folder: Path, count: int, runs: int) -> dict[str, Any]:
    home = folder / "home"
    workspace = (folder / "workspace").resolve()
    workspace.mkdir(parents=True)
    sessions = home / ".claude" / "projects" / slug(str(workspace))
    sessions.mkdir(parents=True)
    turn = "Why does the parser drop the last line of a file that has no newline at the end? " * 4
    total = 0
    for index in range(count):
        lines = []
        for number in range(120):
            role = "user" if number % 2 == 0 else "assistant"
            content: Any = turn if role == "user" else [{"type": "text", "text": turn}]
            lines.append(
                json.dumps({"type": role, "message": {"role": role, "content": content}, "cwd": str(workspace)})
            )
        path = sessions / f"session-{index:03d}.jsonl"
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        moment = time.time() - index * 60
        os.utime(path, (moment, moment))
        total += path.stat().st_size
    os.environ["HOME"] = str(home)
    store = open_store(folder / "transcripts.db")
    project = project_for(str(workspace))
    ctx = CallContext(
        source_host="bench", agent_view=True, workspace_roots=lambda: [workspace.as_uri()], project=lambda: project
    )
    prepare = {"action": "prepare", "project": project, "kind": "transcript"}
    result = timed(runs, lambda: call("work_package", store, prepare, ctx))
    store.close()
    return {"transcripts": count, "directory_mib": round(total / 2**20, 2), **result}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=10_000)
    parser.add_argument("--transcripts", type=int, default=256)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        figures: dict[str, object] = {
            "digest_one_project": digest(folder, args.n, 1, args.runs),
            "digest_fifty_projects": digest(folder, args.n, 50, args.runs),
            "transcript": transcripts(folder, args.transcripts, args.runs),
            "process_peak_rss_mib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        }
    if args.json:
        emit_json({"machine": machine(), **figures})
        return
    print(machine_line())
    shown = ("median_ms", "max_ms", "peak_python_mib", "status")
    for name in ("digest_one_project", "digest_fifty_projects", "transcript"):
        row: dict[str, Any] = figures[name]  # type: ignore[assignment]
        extra = ", ".join(f"{key}={value}" for key, value in row.items() if key not in shown)
        print(
            f"{name}: median {row['median_ms']} ms, worst {row['max_ms']} ms, peak {row['peak_python_mib']} MiB "
            f"allocated, answer {row['status']}  ({extra})"
        )
    print(f"process peak RSS: {figures['process_peak_rss_mib']} MiB")


if __name__ == "__main__":
    main()
