"""Helpers shared by the benchmark scripts: timing, percentiles, data files and calls through the product's path."""

from __future__ import annotations

import json
import os
import platform
import sqlite3
import statistics
import sys
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

from returns.result import Failure, Result, Success

from memesh.app import dispatch
from memesh.app.resources import Resources
from memesh.context import CallContext
from memesh.errors import MemeshError
from memesh.store.open import Store
from memesh.store.sqlite import SqliteStore, open_store

REPO_ROOT = Path(__file__).resolve().parent.parent

# Every benchmark measures processes as they run with no resident MeMesh server (issue 36) unless it asks for one
# (side_by_side.py --warm): a cold command would otherwise start one, and the next would be answered by it.
os.environ.setdefault("MEMESH_DAEMON", "0")


def call(
    name: str, store: Store, arguments: Any, ctx: CallContext, *, nulls_mean_absent: bool = False
) -> Result[Any, MemeshError]:
    """The tool called `name` through the one door, on a database the benchmark holds open."""
    return dispatch.call(name, Resources.over(store), arguments, ctx, nulls_mean_absent=nulls_mean_absent)


def percentile(samples: Sequence[float], fraction: float) -> float:
    """The value at `fraction` (0..1) of the sorted samples, nearest-rank."""
    ordered = sorted(samples)
    if not ordered:
        return float("nan")
    index = min(len(ordered) - 1, max(0, round(fraction * (len(ordered) - 1))))
    return ordered[index]


def median(samples: Sequence[float]) -> float:
    return statistics.median(samples) if samples else float("nan")


def bench_data(filename: str) -> Path:
    """`shared/bench/<filename>` next to the repository (the lead's checkout sits beside shared/, a worktree deeper).

    The data is licensed for evaluation only and is never shipped in the package: it is read from outside the
    repository at run time, or from `--data`.
    """
    for folder in REPO_ROOT.parents:
        candidate = folder / "shared" / "bench" / filename
        if candidate.is_file():
            return candidate
    raise SystemExit(f"{filename} not found in any shared/bench/ above {REPO_ROOT}; pass --data PATH")


def load_json(path: Path) -> Any:
    with path.open(encoding="utf-8") as handle:
        return json.load(handle)


class Tools:
    """Calls a tool as a transport does (memesh.app.dispatch.call) and unwraps the Result, raising on Failure."""

    def __init__(self, store: Store, *, agent_view: bool = False, host: str = "bench") -> None:
        self.store = store
        self.agent_view = agent_view
        self.host = host

    def __call__(self, tool: str, arguments: dict[str, Any], now: datetime | None = None) -> Any:
        ctx = CallContext(source_host=self.host, agent_view=self.agent_view)
        if now is not None:
            ctx = ctx.at(now)
        match call(tool, self.store, arguments, ctx):
            case Success(output):
                return output
            case Failure(error):
                raise RuntimeError(f"{tool} failed: {error.code}: {error.message}")
        raise AssertionError("unreachable")


def fresh_store(folder: Path, name: str = "knowledge-graph.db") -> SqliteStore:
    """A new, migrated database file in `folder`."""
    return open_store(folder / name)


def machine() -> dict[str, Any]:
    """Cores, memory and versions of the machine the figures come from (Linux /proc when present)."""
    info: dict[str, Any] = {"python": platform.python_version(), "platform": platform.platform()}
    info["sqlite"] = sqlite3.sqlite_version
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.exists():
        text = cpuinfo.read_text()
        info["cores"] = text.count("processor\t:")
        for line in text.splitlines():
            if line.startswith("model name"):
                info["cpu"] = line.split(":", 1)[1].strip()
                break
    loadavg = Path("/proc/loadavg")
    if loadavg.exists():  # the machine is shared: other work running at the same time slows every figure
        info["load_average_1m"] = float(loadavg.read_text().split()[0])
    meminfo = Path("/proc/meminfo")
    if meminfo.exists():
        for line in meminfo.read_text().splitlines():
            if line.startswith("MemTotal:"):
                info["memory_gb"] = round(int(line.split()[1]) / 1024 / 1024, 1)
    return info


def emit_json(payload: dict[str, Any]) -> None:
    json.dump(payload, sys.stdout, indent=2, ensure_ascii=False)
    sys.stdout.write("\n")


def ms(seconds: float) -> float:
    return round(seconds * 1000, 3)


MAX_OBSERVATIONS_PER_CALL = 100  # remember's schema: at most 100 observations per call
MAX_OBSERVATION_CHARS = 10_000  # and each at most 10,000 characters


def split_long(text: str, limit: int = MAX_OBSERVATION_CHARS) -> list[str]:
    """`text` in pieces of at most `limit` characters, cut at the last whitespace before the limit when there is one."""
    pieces: list[str] = []
    while len(text) > limit:
        cut = text.rfind(" ", limit // 2, limit)
        cut = cut if cut > 0 else limit
        pieces.append(text[:cut])
        text = text[cut:].lstrip()
    if text.strip():
        pieces.append(text)
    return pieces


def remember_in_calls(
    tools: Tools, arguments: dict[str, Any], observations: Sequence[str], now: datetime | None = None
) -> int:
    """Store one memory through remember, at `now` on the call's clock (None: the real one); past 100 observations
    the rest is appended by further remember calls with the same name (remember's own append path). Returns the
    memory's id."""
    first = dict(arguments, observations=list(observations[:MAX_OBSERVATIONS_PER_CALL]))
    entity_id = int(tools("remember", first, now)["entityId"])
    for start in range(MAX_OBSERVATIONS_PER_CALL, len(observations), MAX_OBSERVATIONS_PER_CALL):
        more = {"name": arguments["name"], "type": arguments["type"]}
        chunk = list(observations[start : start + MAX_OBSERVATIONS_PER_CALL])
        tools("remember", dict(more, observations=chunk), now)
    return entity_id


def machine_line() -> str:
    """The machine in one line, for the top of a table of timings."""
    info = machine()
    parts = [f"{info.get('cores', '?')} cores", f"{info.get('memory_gb', '?')} GB"]
    parts += [f"Python {info['python']}", f"SQLite {info['sqlite']}"]
    if "load_average_1m" in info:
        parts.append(f"load average {info['load_average_1m']} (other work on the machine slows every figure)")
    return "machine: " + ", ".join(parts)


def recall_mode() -> str:
    """The recall mode these figures are for and where it came from (MEMESH_RECALL_MODE, config.json's
    `recallMode`, or the default), as `memesh config list` states it."""
    return Resources().recall_mode().row
