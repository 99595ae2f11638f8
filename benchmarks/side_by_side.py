"""Side by side: the whole-process figures of issue 22, for this MeMesh and (with --vs) another one on PATH.

Each figure is a new process started the way a person or an agent starts it, timed from spawn to exit (and, for the
MCP session, to the first tool call's answer), at `--n` memories (default 10,000):
- `python -c pass` of this install's interpreter: the floor every goal is a ratio to; the system `python3 -c pass`
  beside it (the cold pre-edit hook's goal is a ratio to that one);
- CLI `recall auth --json`, `remember "<text>" --json`, `briefing`;
- `export` to stdout (a pipe), beside a plain `json.dump(bundle, sys.stdout, indent=2)` of the same bundle;
- an MCP session piped whole: initialize, initialized, tools/list and a recall written at once, then EOF; the time
  to the recall's answer ("first tool call") and to the server's exit;
- the cold pre-edit hook (PreToolUse before an Edit of a file with memories), no server running.

The other MeMesh is named by command prefixes: `--vs` its CLI (e.g. `--vs "node /opt/memesh/dist/cli/index.js"`),
`--vs-mcp` its MCP server command, `--vs-hook` its hook command (the event name is appended, the payload goes to
stdin). Each side gets its own HOME in a temporary folder; the other side is seeded by importing the bundle this
side exported (`<cli> import FILE`), so both hold the same memories. Runs are interleaved (ours, theirs, ours, …) so
the load of a shared machine falls on both alike; the load average is printed with the figures.

`--instructions` counts instead of timing: each case runs once more under valgrind's callgrind (children followed,
so the plugin's sh launcher and the process it execs are counted together) and the figure is the number of
instructions executed, as a ratio to the floor's count. That count is the same whatever else the machine is doing
(two runs agree to within 0.1 %), so designs can be compared on a loaded machine where wall and CPU times are 2-5x
their quiet values. It leaves out what instructions do not show (page faults, cache misses, waiting on the disk),
so it complements the timed figures; the MCP session is not counted (its early front imports the SDK after 150 ms
of quiet, and valgrind's slowdown makes that happen where it would not). `git` is not followed: it runs natively
(`--trace-children-skip`) and its own instructions are left out. Followed, it ran 50-100x slower, outlived the
product's 2-second git timeout on a loaded machine, and the briefing then lost its project and counted a different,
smaller briefing (440 M instead of 698 M). The commands stay exactly the timed ones; what the product does to start
git (the fork, `subprocess`) is still counted.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import select
import shlex
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from _common import REPO_ROOT, Tools, emit_json, fresh_store, machine, machine_line, median, ms

from memesh.adapters.project_git import project_for

BIN = Path(sys.executable).parent
KINDS = ("decision", "lesson_learned", "pattern", "note", "commit")
# Goals, as ratios to this install's `python -c pass` (the hook's to the system python3's).
GOALS = {
    "cli_recall": 6.0,
    "briefing": 10.0,
    "mcp_first_tool_call": 20.0,
    "mcp_session": 20.0,
    "hook_pre_edit_cold": 2.5,
}


@dataclass
class Side:
    """One MeMesh: its commands and the environment (its own HOME) they run in."""

    label: str
    cli: list[str]
    mcp: list[str] | None
    hook: list[str] | None
    env: dict[str, str]
    samples: dict[str, list[tuple[float, float]]] = field(default_factory=dict)  # figure → (wall, cpu) per run
    warm: bool = False  # `--warm`: the figures through the resident server too (ours only)
    server: int | None = None  # the resident server's process id, while it runs


def home_env(folder: Path) -> dict[str, str]:
    home = folder / "home"
    (home / ".memesh").mkdir(parents=True, exist_ok=True)
    env = {
        **os.environ,
        "HOME": str(home),
        "MEMESH_DIR": str(home / ".memesh"),
        "MEMESH_DB_PATH": str(home / ".memesh" / "knowledge-graph.db"),
        "CLAUDECODE": "1",
        # The cold figures are cold: no resident server answers them or is started by them (`--warm` adds the
        # figures through one).
        "MEMESH_DAEMON": "0",
    }
    env.pop("MEMESH_DATABASE_URL", None)
    return env


# The figures `--warm` adds (ours only): the same commands answered by the resident server (MEMESH_DAEMON), and a
# hybrid-mode recall both ways. Each maps to (cold figure it repeats, environment added).
WARM = {"MEMESH_DAEMON": "1", "MEMESH_DAEMON_IDLE_S": "3600"}
HYBRID = {"MEMESH_RECALL_MODE": "hybrid"}
WARM_CASES = {
    "cli_recall_warm": ("cli_recall", WARM),
    "cli_remember_warm": ("cli_remember", WARM),
    "briefing_warm": ("briefing", WARM),
    "hook_pre_edit_warm": ("hook_pre_edit_cold", WARM),
    "cli_recall_hybrid": ("cli_recall", HYBRID),
    "cli_recall_hybrid_warm": ("cli_recall", {**WARM, **HYBRID}),
}


def resident_pid(env: dict[str, str]) -> int | None:
    from memesh import resident

    return resident.running_pid(*resident.served(env))


def start_resident(env: dict[str, str], cwd: Path) -> int:
    """The resident server of `env`'s database, started by a cold call and waited for; its process id."""
    from memesh import resident
    from memesh.transports.hooks import server

    warm = {**env, **WARM}
    subprocess.run([str(BIN / "memesh"), "stats"], env=warm, cwd=cwd, capture_output=True, check=True)
    path = resident.socket_path(*resident.served(warm))
    deadline = time.monotonic() + 120
    while not (resident_pid(warm) and Path(path).exists() and server._answers(path)):
        if time.monotonic() > deadline:
            raise RuntimeError("the resident server did not start")
        time.sleep(0.1)
    pid = resident_pid(warm)
    assert pid is not None
    return pid


def process_cpu(pid: int) -> float:
    """CPU seconds (user + system) process `pid` has used."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def seed(env: dict[str, str], project: str, n: int) -> None:
    """n memories, a third in the benchmark's project, through the same remember operation every transport calls."""
    store = fresh_store(Path(env["MEMESH_DIR"]))
    tools = Tools(store, host="bench")
    with store.transaction():
        for i in range(n):
            tags = [f"project:{project}" if i % 3 == 0 else f"project:other-{i % 7}", f"topic:t{i % 40}"]
            if i % 10 == 0:
                tags.append(f"file:module_{i % 50}.py")
            tools(
                "remember",
                {
                    "name": f"memory-{i}",
                    "type": KINDS[i % len(KINDS)],
                    "title": f"Memory number {i} about auth topic {i % 40}",
                    "observations": [f"Observation {i}: the auth cache keeps {i % 97} entries warm.", "Second."],
                    "tags": tags,
                },
            )
    store.close()


def timed(command: Sequence[str], env: dict[str, str], cwd: Path, stdin: bytes = b"") -> tuple[float, float, int]:
    """Wall and CPU seconds (user + system of the child and what it ran) of one process, and its exit code."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(
        command, input=stdin, env=env, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, check=False
    )
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    if done.returncode != 0:
        raise RuntimeError(f"{shlex.join(command)} exited {done.returncode}: {done.stderr.decode()[-300:]}")
    return wall, cpu, done.returncode


def instructions(command: Sequence[str], env: dict[str, str], cwd: Path, stdin: bytes = b"") -> int:
    """Instructions executed by one process and every process it starts (callgrind's totals, summed); a warning
    when its output differs from the same command's run natively (then it counted different work)."""
    native = subprocess.run(command, input=stdin, env=env, cwd=cwd, capture_output=True, check=False).stdout
    with tempfile.TemporaryDirectory(prefix="memesh-callgrind-") as scratch:
        valgrind = [
            "valgrind",
            "--tool=callgrind",
            "--trace-children=yes",
            # git runs natively: under valgrind it outlived the product's git timeout and the project was lost.
            "--trace-children-skip=*/git,git",
            f"--callgrind-out-file={scratch}/cg.%p",
        ]
        done = subprocess.run(
            [*valgrind, *command],
            input=stdin,
            env=env,
            cwd=cwd,
            capture_output=True,
            check=False,
        )
        if done.returncode != 0:
            raise RuntimeError(f"{shlex.join(command)} exited {done.returncode}: {done.stderr.decode()[-300:]}")
        if done.stdout != native and "remember" not in command and "recall" not in command:
            # A recall touches what it finds and a remember appends: their answers differ run to run by design.
            print(f"warning: {shlex.join(command)} answered differently under valgrind", file=sys.stderr)
        total = 0
        for dump in Path(scratch).glob("cg.*"):
            for line in dump.read_text(errors="replace").splitlines():
                if line.startswith(("summary:", "totals:")):
                    total += int(line.split()[1])
                    break
        return total


def count_round(sides: Sequence[Side], project_dir: Path, bundle: Path) -> dict[str, Any]:
    """Each case's instruction count, and as a ratio to the floor's (the hook's to the system python3's)."""
    env = sides[0].env
    floor = {
        "python_pass": instructions([sys.executable, "-c", "pass"], env, project_dir),
        "system_python3_pass": instructions(["/usr/bin/python3", "-c", "pass"], env, project_dir),
    }
    figures: dict[str, Any] = {}
    for side in sides:
        for figure, case in cases(side, project_dir, bundle).items():
            if case is None or figure in ("export_stdout", "plain_json_dump"):
                continue  # export's goal is a ratio of times to json.dump's, not to the floor
            command, stdin, env = case
            count = instructions(command, env, project_dir, stdin)
            base = floor["system_python3_pass"] if figure == "hook_pre_edit_cold" else floor["python_pass"]
            row = figures.setdefault(figure, {})
            row[side.label] = {"instructions": count, "x_floor": round(count / base, 2)}
            if figure in GOALS:
                row["goal_x_floor"] = GOALS[figure]
    return {"floor_instructions": floor, "figures": figures}


def print_counts(counted: dict[str, Any]) -> None:
    floor = counted["floor_instructions"]
    print(
        f"floor (instructions): python -c pass {floor['python_pass']:,}, "
        f"system python3 -c pass {floor['system_python3_pass']:,}"
    )
    print(f"{'figure':22} {'ours Minstr':>12} {'×floor':>7} {'theirs Minstr':>14} {'×floor':>7}  goal")
    for figure, row in counted["figures"].items():
        shown = {
            label: (f"{side['instructions'] / 1e6:.1f}", str(side["x_floor"]))
            for label, side in row.items()
            if label in ("ours", "theirs")
        }
        ours, theirs = shown.get("ours", ("-", "-")), shown.get("theirs", ("-", "-"))
        goal = f"≤ {row['goal_x_floor']}× floor" if "goal_x_floor" in row else ""
        print(f"{figure:22} {ours[0]:>12} {ours[1]:>7} {theirs[0]:>14} {theirs[1]:>7}  {goal}")


def mcp_session(command: Sequence[str], env: dict[str, str], cwd: Path) -> tuple[float, float]:
    """Spawn the server, write the whole session at once and close stdin: (seconds to the recall's answer, to exit)."""
    lines = [
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-11-25",
                "capabilities": {},
                "clientInfo": {"name": "side-by-side", "version": "1"},
            },
        },
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
        {
            "jsonrpc": "2.0",
            "id": 3,
            "method": "tools/call",
            "params": {"name": "recall", "arguments": {"query": "auth"}},
        },
    ]
    payload = "".join(json.dumps(line) + "\n" for line in lines).encode()
    started = time.perf_counter()
    process = subprocess.Popen(command, env=env, cwd=cwd, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert process.stdin is not None and process.stdout is not None
    process.stdin.write(payload)
    process.stdin.close()
    first_call = None
    buffered = b""
    while first_call is None:
        ready, _, _ = select.select([process.stdout], [], [], 60)
        if not ready:
            process.kill()
            raise RuntimeError(f"{shlex.join(command)}: no answer to the recall within 60 s")
        chunk = os.read(process.stdout.fileno(), 65536)
        if not chunk:
            raise RuntimeError(f"{shlex.join(command)} closed stdout before answering the recall")
        buffered += chunk
        *complete, buffered = buffered.split(b"\n")
        for line in complete:
            if line.strip() and json.loads(line).get("id") == 3:
                first_call = time.perf_counter() - started
    while os.read(process.stdout.fileno(), 65536):
        pass
    process.wait(timeout=60)
    return first_call, time.perf_counter() - started


def pre_edit_payload(project_dir: Path) -> bytes:
    event = {
        "session_id": "side-by-side",
        "hook_event_name": "PreToolUse",
        "cwd": str(project_dir),
        "tool_name": "Edit",
        "tool_input": {"file_path": str(project_dir / "module_10.py"), "old_string": "a", "new_string": "b"},
    }
    return json.dumps(event).encode()


def plain_dump_command(bundle: Path) -> list[str]:
    code = "import json, sys; json.dump(json.load(open(sys.argv[1])), sys.stdout, indent=2)"
    return [sys.executable, "-c", code, str(bundle)]


def cases(side: Side, project_dir: Path, bundle: Path) -> dict[str, tuple[list[str], bytes, dict[str, str]] | None]:
    """Each figure's command and stdin; None where the side has no such command (the plain json.dump is one
    figure, timed on our side only)."""
    hook = [*side.hook, "pre-tool-use"] if side.hook else None
    env = side.env
    found: dict[str, tuple[list[str], bytes, dict[str, str]] | None] = {
        "cli_recall": ([*side.cli, "recall", "auth", "--json"], b"", env),
        "cli_remember": ([*side.cli, "remember", "side by side: a note the benchmark stores", "--json"], b"", env),
        "briefing": ([*side.cli, "briefing"], b"", env),
        "export_stdout": ([*side.cli, "export"], b"", env),
        "plain_json_dump": (plain_dump_command(bundle), b"", env) if side.label == "ours" else None,
        "hook_pre_edit_cold": (hook, pre_edit_payload(project_dir), env) if hook else None,
    }
    if side.warm:
        for figure, (cold, added) in WARM_CASES.items():
            case = found[cold]
            found[figure] = None if case is None else (case[0], case[1], {**env, **added})
    return found


def run_round(sides: Sequence[Side], project_dir: Path, bundle: Path, floor: dict[str, list[float]]) -> None:
    env = sides[0].env
    floor.setdefault("python_pass", []).append(timed([sys.executable, "-c", "pass"], env, project_dir)[0])
    floor.setdefault("system_python3_pass", []).append(timed(["/usr/bin/python3", "-c", "pass"], env, project_dir)[0])
    for side in sides:
        for figure, case in cases(side, project_dir, bundle).items():
            if case is None:
                continue
            command, stdin, env = case
            before = process_cpu(side.server) if side.server and figure.endswith("_warm") else None
            wall, cpu, _ = timed(command, env, project_dir, stdin)
            side.samples.setdefault(figure, []).append((wall, cpu))
            if before is not None and side.server is not None:  # what the server spent answering it
                side.samples.setdefault(figure + "_server", []).append((0.0, process_cpu(side.server) - before))
        if side.mcp:
            first_call, whole = mcp_session(side.mcp, side.env, project_dir)
            side.samples.setdefault("mcp_first_tool_call", []).append((first_call, 0.0))
            side.samples.setdefault("mcp_session", []).append((whole, 0.0))


def summary(sides: Sequence[Side], floor: dict[str, float]) -> dict[str, Any]:
    figures: dict[str, Any] = {}
    for side in sides:
        for figure, samples in side.samples.items():
            wall = median([wall for wall, _ in samples])
            base = floor["system_python3_pass"] if figure == "hook_pre_edit_cold" else floor["python_pass"]
            row = figures.setdefault(figure, {})
            row[side.label] = {
                "median_ms": ms(wall),
                "cpu_median_ms": ms(median([cpu for _, cpu in samples])) if any(cpu for _, cpu in samples) else None,
                "x_floor": round(wall / base, 2),
            }
    for figure, row in figures.items():
        if "ours" in row and "theirs" in row:
            row["ours_over_theirs"] = round(row["ours"]["median_ms"] / row["theirs"]["median_ms"], 2)
        if figure in GOALS:
            row["goal_x_floor"] = GOALS[figure]
        if figure == "export_stdout" and "plain_json_dump" in figures:
            plain = figures["plain_json_dump"]["ours"]["median_ms"]
            row["ours_over_plain_json_dump"] = round(row["ours"]["median_ms"] / plain, 2)
            row["goal_over_plain_json_dump"] = 1.5
    return figures


def print_table(figures: dict[str, Any], floor: dict[str, float]) -> None:
    print(
        f"floor: python -c pass {ms(floor['python_pass'])} ms, system python3 -c pass "
        f"{ms(floor['system_python3_pass'])} ms"
    )
    print(
        f"{'figure':29} {'ours ms':>9} {'×floor':>7} {'ours CPU':>9} {'theirs ms':>10} {'×floor':>7} "
        f"{'ours÷theirs':>12}  goal"
    )
    for figure, row in figures.items():
        ours, theirs = row.get("ours"), row.get("theirs")
        goal = f"≤ {row['goal_x_floor']}× floor" if "goal_x_floor" in row else ""
        if "ours_over_plain_json_dump" in row:
            goal = f"{row['ours_over_plain_json_dump']}× plain json.dump (goal ≤ 1.5×)"
        if figure.endswith("_server"):
            goal = "CPU the resident server spent on the request"
        cpu = ours.get("cpu_median_ms") if ours else None
        print(
            f"{figure:29} {ours['median_ms'] if ours else '-':>9} {ours['x_floor'] if ours else '-':>7} "
            f"{cpu if cpu is not None else '-':>9} "
            f"{theirs['median_ms'] if theirs else '-':>10} {theirs['x_floor'] if theirs else '-':>7} "
            f"{row.get('ours_over_theirs', '-'):>12}  {goal}"
        )


def our_hook() -> list[str]:
    """The plugin's own hook command when the checkout has one (what a host runs), else the installed script."""
    launcher = REPO_ROOT / "bin" / "memesh-hook"
    return [str(launcher)] if launcher.exists() else [str(BIN / "memesh-hook")]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--n", type=int, default=10_000, help="memories in each database (default 10000)")
    parser.add_argument("--runs", type=int, default=9, help="interleaved rounds (default 9)")
    parser.add_argument("--vs", help="the other MeMesh's CLI, as a command prefix")
    parser.add_argument("--vs-mcp", help="the other MeMesh's MCP server command")
    parser.add_argument("--vs-hook", help="the other MeMesh's hook command prefix (the event name is appended)")
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of a table")
    parser.add_argument(
        "--instructions", action="store_true", help="count instructions under callgrind (load-independent) instead"
    )
    parser.add_argument(
        "--warm", action="store_true", help="add our figures through the resident server, and hybrid-mode recall"
    )
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="memesh-side-") as scratch:
        folder = Path(scratch)
        project_dir = folder / "repo"
        project_dir.mkdir()
        subprocess.run(["git", "init", "-q", str(project_dir)], check=True)
        ours_env = home_env(folder / "ours")
        ours_env["CLAUDE_PLUGIN_ROOT"] = str(REPO_ROOT)
        # This process seeds through the door too: it must not read or write the real ~/.memesh either.
        for name in ("HOME", "MEMESH_DIR", "MEMESH_DB_PATH"):
            os.environ[name] = ours_env[name]
        seed(ours_env, project_for(str(project_dir)), args.n)
        bundle = folder / "bundle.json"
        export = [str(BIN / "memesh"), "export", "--limit", str(max(args.n, 1000)), "-o", str(bundle)]
        subprocess.run(export, env=ours_env, cwd=project_dir, check=True)  # all of them: --vs imports this bundle
        sides = [Side("ours", [str(BIN / "memesh")], [str(BIN / "memesh-mcp")], our_hook(), ours_env, warm=args.warm)]
        if args.warm:
            sides[0].server = start_resident(ours_env, project_dir)
        try:
            return measured(args, sides, folder, project_dir, bundle)
        finally:
            if sides[0].server is not None:
                os.kill(sides[0].server, 15)


def measured(args: argparse.Namespace, sides: list[Side], folder: Path, project_dir: Path, bundle: Path) -> int:
    """The figures of `sides` (timed, or counted with --instructions), printed."""
    if args.vs:
        theirs_env = home_env(folder / "theirs")
        cli = shlex.split(args.vs)
        subprocess.run([*cli, "import", str(bundle)], env=theirs_env, cwd=project_dir, check=True)
        mcp = shlex.split(args.vs_mcp) if args.vs_mcp else None
        hook = shlex.split(args.vs_hook) if args.vs_hook else None
        sides.append(Side("theirs", cli, mcp, hook, theirs_env))
    # One unmeasured round first: the page cache, bytecode and each side's own caches.
    run_round(sides, project_dir, bundle, {})
    if args.instructions:
        counted = count_round(sides, project_dir, bundle)
        if args.json:
            emit_json({"machine": machine(), "n": args.n, **counted})
        else:
            print(machine_line())
            print(f"n = {args.n:,}, instructions counted by callgrind (the same under any load)")
            print_counts(counted)
        return 0
    for side in sides:
        side.samples.clear()
    floor_samples: dict[str, list[float]] = {}
    for _ in range(args.runs):
        run_round(sides, project_dir, bundle, floor_samples)
    floor = {name: median(samples) for name, samples in floor_samples.items()}
    figures = summary(sides, floor)
    load = Path("/proc/loadavg").read_text().split()[:3] if Path("/proc/loadavg").exists() else []
    if args.json:
        emit_json({"machine": machine(), "load": load, "n": args.n, "floor_ms": floor, "figures": figures})
        return 0
    print(machine_line())
    print(f"n = {args.n:,}, {args.runs} interleaved rounds, load average {' '.join(load)}")
    print_table(figures, floor)
    return 0


if __name__ == "__main__":
    sys.exit(main())
