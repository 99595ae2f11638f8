"""Hooks: each hook as the whole process Claude Code waits for, at 10k memories, beside `python -c pass`.

A database of `--n` memories (default 10,000; a third in the benchmark's own git project, the rest in other
projects; decisions, lessons, patterns, notes and commits, some tagged file:<name>) is built once in a temporary
folder. Then each case runs `--runs` times as a new process with hook JSON on stdin, exactly as the host runs it:
- `python -c pass`, the floor;
- `memesh-hook session-start` at level minimal (the default), standard and full;
- `memesh-hook pre-tool-use` before an Edit of a file with memories (pre-edit recall), and before a Bash command
  (the lesson guards);
- `memesh-hook post-tool-use` after a Bash command that is not a commit (the common case);
- `memesh-hook stop` over a short transcript;
- the plugin's launcher (`bin/memesh-hook`, a POSIX sh script) for SessionStart, to show what it adds.
Every case runs twice: cold (no memesh-mcp running: the hook runs in its own process) and warm (a memesh-mcp of the
same database running, as Claude Code keeps it for a session: the hook process hands the event to it). The warm
CPU figure is the hook process's; "+ server" is memesh-mcp's CPU per hook, from /proc.
Targets: pre-edit median ≤ 45 ms, SessionStart ≤ 60 ms. `--importtime` also prints where a SessionStart and a
pre-edit process spend their imports (python -X importtime, top entries). `--instructions` counts each cold case once
under valgrind's callgrind instead (instructions executed, the same under any load; with PYTHONDONTWRITEBYTECODE
unset, since a module compiled on every run counts its compiler).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from _common import REPO_ROOT, Tools, emit_json, fresh_store, machine, machine_line, median, ms

from memesh.adapters.project_git import project_for
from memesh.transports.hooks import wire

BIN = Path(sys.executable).parent
KINDS = ("decision", "lesson_learned", "pattern", "note", "commit")


def build(folder: Path, n: int) -> tuple[dict[str, str], Path, str]:
    home = folder / "home"
    env = {
        **os.environ,
        "HOME": str(home),
        "MEMESH_DIR": str(home / ".memesh"),
        "MEMESH_DB_PATH": str(home / ".memesh" / "knowledge-graph.db"),
        "CLAUDECODE": "1",
        "CLAUDE_PLUGIN_ROOT": str(REPO_ROOT),
    }
    env.pop("MEMESH_BRIEFING", None)
    project_dir = folder / "repo"
    project_dir.mkdir()
    subprocess.run(["git", "init", "-q", str(project_dir)], check=True)
    project = project_for(str(project_dir))
    store = fresh_store(home / ".memesh")
    tools = Tools(store, host="bench")
    started = time.perf_counter()
    with store.transaction():
        for i in range(n):
            mine = i % 3 == 0
            tags = [f"project:{project}" if mine else f"project:other-{i % 7}", f"topic:t{i % 40}"]
            if i % 10 == 0:
                tags.append(f"file:module_{i % 50}.py")
            tools(
                "remember",
                {
                    "name": f"memory-{i}",
                    "type": KINDS[i % len(KINDS)],
                    "title": f"Memory number {i} about topic {i % 40}",
                    "observations": [f"Observation {i}: the cache layer keeps {i % 97} entries warm.", "Second."],
                    "tags": tags,
                },
            )
    print(f"built {n} memories in {time.perf_counter() - started:.1f} s", file=sys.stderr)
    store.close()
    return env, project_dir, project


def prepared(folder: Path, n: int) -> tuple[dict[str, str], Path, str]:
    """The benchmark's database: built in `folder`, or the one a run with the same --n left there."""
    stamp = folder / f"built-{n}"
    if stamp.exists():
        env = json.loads(stamp.read_text())
        # The plugin root is the checkout running the benchmark, not the one that built the database: the launcher
        # case runs that checkout's memesh-hook.
        env["CLAUDE_PLUGIN_ROOT"] = str(REPO_ROOT)
        return {**os.environ, **env}, folder / "repo", project_for(str(folder / "repo"))
    folder.mkdir(parents=True, exist_ok=True)
    env, project_dir, project = build(folder, n)
    stamp.write_text(json.dumps({key: env[key] for key in env if key not in os.environ or env[key] != os.environ[key]}))
    return env, project_dir, project


def transcript(folder: Path, project_dir: Path) -> Path:
    path = folder / "home" / ".claude" / "projects" / "-repo" / "bench.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = [{"type": "user", "message": {"role": "user", "content": "work"}}]
    for i in range(5):
        block = {
            "type": "tool_use",
            "id": f"t{i}",
            "name": "Edit",
            "input": {"file_path": str(project_dir / f"f{i}.py")},
        }
        lines.append({"type": "assistant", "message": {"role": "assistant", "content": [block]}})
        result = {"type": "tool_result", "tool_use_id": f"t{i}", "content": "ok"}
        lines.append({"type": "user", "message": {"role": "user", "content": [result]}})
    reply = "Moved the cache to WAL and measured the hooks; next, the README section about plugin install. [mem:1]"
    lines.append({"type": "assistant", "message": {"role": "assistant", "content": [{"type": "text", "text": reply}]}})
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


def time_case(command: Sequence[str], stdin: bytes, env: dict[str, str], cwd: Path, runs: int) -> dict[str, Any]:
    probe = subprocess.run(command, input=stdin, env=env, cwd=cwd, capture_output=True, check=False)
    if probe.returncode != 0:
        return {"skipped": probe.stderr.decode()[-200:]}
    samples, cpu = [], []
    for _ in range(runs):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.perf_counter()
        subprocess.run(command, input=stdin, env=env, cwd=cwd, capture_output=True, check=False)
        samples.append(time.perf_counter() - started)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu.append(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime)
    # CPU time (user + system, the process and any git it runs) says what the hook itself costs when the shared
    # machine is busy and wall time mostly measures waiting for a core.
    return {
        "median_ms": ms(median(samples)),
        "min_ms": ms(min(samples)),
        "max_ms": ms(max(samples)),
        "cpu_median_ms": ms(median(cpu)),
    }


def _shown(figures: dict[str, Any] | None) -> str:
    if figures is None:
        return ""
    if "skipped" in figures:
        return f"skipped: {figures['skipped']}"
    shown = f"{figures['median_ms']:.1f} ms (min {figures['min_ms']:.1f}), cpu {figures['cpu_median_ms']:.1f}"
    if "server_cpu_ms" in figures:
        shown += f" + server {figures['server_cpu_ms']:.1f}"
    return shown


@contextmanager
def warm_server(env: dict[str, str], cwd: Path) -> Iterator[Callable[[], float]]:
    """memesh-mcp running as Claude Code keeps it (stdin held open), serving hooks on its socket; yields a reader of
    its CPU time in seconds (user + system, from /proc), so the server's share of a warm hook can be shown."""
    server = subprocess.Popen(
        [str(BIN / "memesh-mcp")],
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=env,
        cwd=cwd,
    )
    socket_file = Path(wire.socket_path(*wire.locations(env)))
    deadline = time.monotonic() + 60
    while not socket_file.exists():
        if time.monotonic() > deadline or server.poll() is not None:
            server.kill()
            raise SystemExit("memesh-mcp did not start serving hooks")
        time.sleep(0.05)
    ticks = os.sysconf("SC_CLK_TCK")

    def cpu() -> float:
        try:
            fields = Path(f"/proc/{server.pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            return float("nan")
        return (int(fields[11]) + int(fields[12])) / ticks

    try:
        yield cpu
    finally:
        assert server.stdin is not None
        server.stdin.close()
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()


def import_profile(event: str, stdin: bytes, env: dict[str, str], cwd: Path) -> list[tuple[str, float]]:
    """The costliest top-level imports of one hook run, in ms (python -X importtime, cumulative)."""
    code = "import sys; from memesh.transports.hooks.main import main; sys.argv = ['memesh-hook', sys.argv[1]]; main()"
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", code, event],
        input=stdin,
        env=env,
        cwd=cwd,
        capture_output=True,
        check=False,
    )
    rows = []
    for line in done.stderr.decode().splitlines():
        parts = line.removeprefix("import time:").split("|")
        if len(parts) == 3 and parts[1].strip().isdigit() and not parts[2].startswith("  "):
            rows.append((parts[2].strip(), int(parts[1]) / 1000))
    return sorted(rows, key=lambda row: -row[1])[:12]


def count_cases(cases: dict[str, tuple[list[str], bytes, dict[str, str]]], cwd: Path) -> int:
    """Each cold case once under valgrind's callgrind (side_by_side.instructions: children followed, git run natively),
    after one native run for the page cache and bytecode: the figures docs/adr/0014-hosts.md compares."""
    from side_by_side import instructions

    counts: dict[str, int] = {}
    for label, (command, data, env) in cases.items():
        quiet = {key: value for key, value in env.items() if key != "PYTHONDONTWRITEBYTECODE"}
        subprocess.run(command, input=data, env=quiet, cwd=cwd, capture_output=True, check=False)
        counts[label] = instructions(command, quiet, cwd, data)
        print(f"{label:48} {counts[label] / 1e6:9.1f} M instructions", file=sys.stderr)
    emit_json({"machine": machine(), "at": datetime.now(UTC).isoformat(), "instructions": counts})
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--n", type=int, default=10_000, help="memories in the database (default 10,000)")
    parser.add_argument("--runs", type=int, default=21, help="runs per case (default 21)")
    parser.add_argument("--importtime", action="store_true", help="also print the top imports of two hooks")
    parser.add_argument(
        "--folder", type=Path, help="keep the built database in this folder and reuse it on the next run (same --n)"
    )
    parser.add_argument(
        "--instructions",
        action="store_true",
        help="count each cold case's instructions once under callgrind (load-independent) instead of timing",
    )
    args = parser.parse_args(argv)
    hook = str(BIN / "memesh-hook")
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) if args.folder is None else args.folder.resolve()
        env, project_dir, _project = prepared(folder, args.n)
        cwd = str(project_dir)
        start = json.dumps({"session_id": "bench", "cwd": cwd, "source": "startup"}).encode()
        edit = json.dumps(
            {
                "session_id": "bench",
                "cwd": cwd,
                "tool_name": "Edit",
                "tool_input": {"file_path": f"{cwd}/src/module_30.py", "old_string": "a", "new_string": "b"},
            }
        ).encode()
        bash = json.dumps({"session_id": "bench", "cwd": cwd, "tool_name": "Bash", "tool_input": {"command": "ls -la"}})
        stop = json.dumps({"session_id": "bench", "cwd": cwd, "transcript_path": str(transcript(folder, project_dir))})
        standard = {**env, "MEMESH_BRIEFING": "standard"}
        full = {**env, "MEMESH_BRIEFING": "full"}  # adds global memory, other projects and the work-package check
        cases = {
            "python -c pass": ([sys.executable, "-c", "pass"], b"", env),
            "session-start (minimal)": ([hook, "session-start"], start, env),
            "session-start (standard)": ([hook, "session-start"], start, standard),
            "session-start (full)": ([hook, "session-start"], start, full),
            "session-start via bin/memesh-hook": (
                [str(REPO_ROOT / "bin" / "memesh-hook"), "session-start"],
                start,
                env,
            ),
            "pre-edit recall (PreToolUse Edit)": ([hook, "pre-tool-use"], edit, env),
            "guards (PreToolUse Bash)": ([hook, "pre-tool-use"], bash.encode(), env),
            "post-commit, not a commit (PostToolUse Bash)": ([hook, "post-tool-use"], bash.encode(), env),
            "stop": ([hook, "stop"], stop.encode(), env),
        }
        if args.instructions:
            return count_cases(cases, project_dir)
        results = {label: time_case(cmd, data, e, project_dir, args.runs) for label, (cmd, data, e) in cases.items()}
        warm: dict[str, dict[str, Any]] = {}
        with warm_server(env, project_dir) as server_cpu:
            for label, (cmd, data, e) in cases.items():
                if cmd[0] == sys.executable:
                    continue
                before = server_cpu()
                warm[label] = time_case(cmd, data, e, project_dir, args.runs)
                if "skipped" not in warm[label]:
                    warm[label]["server_cpu_ms"] = ms((server_cpu() - before) / (args.runs + 1))
        profile = {}
        if args.importtime:
            profile = {
                "session-start": import_profile("session-start", start, env, project_dir),
                "pre-edit": import_profile("pre-tool-use", edit, env, project_dir),
            }
    print(machine_line(), file=sys.stderr)
    print(f"{'':48} {'cold (no memesh-mcp)':44} warm (memesh-mcp running)", file=sys.stderr)
    for label, figures in results.items():
        print(f"{label:48} {_shown(figures):44} {_shown(warm.get(label))}", file=sys.stderr)
    for label, rows in profile.items():
        print(f"imports of {label}: " + ", ".join(f"{name} {cost:.1f} ms" for name, cost in rows), file=sys.stderr)
    emit_json(
        {
            "machine": machine(),
            "n": args.n,
            "runs": args.runs,
            "at": datetime.now(UTC).isoformat(),
            "results": results,
            "warm": warm,
            "imports": profile,
        }
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
