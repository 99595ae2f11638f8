"""Beyond MCP: what one memory tool call and one Hermes capture cost.

- `handle_memory_command` in process (each call opens the database, as an application calling it per tool_use
  does): view of the root, of a namespace listing `--n` memories, of one memory, and a str_replace, median of
  `--repeat` calls;
- `memesh hermes capture-turn` and `capture-session` as the Hermes plugin runs them: a new process, JSON on stdin.

Against a database in a temporary folder, filled with `--n` memories through the memory tool itself.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

from _common import machine_line, median, ms

from memesh import handle_memory_command

BIN = Path(sys.executable).parent


def timed(action: Callable[[], object], repeat: int) -> list[float]:
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        action()
        samples.append(time.perf_counter() - start)
    return samples


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--n", type=int, default=1000, help="memories in the namespace listed (default 1000)")
    parser.add_argument("--repeat", type=int, default=20)
    args = parser.parse_args()
    print(machine_line())
    with tempfile.TemporaryDirectory() as folder:
        db = Path(folder) / "kg.db"
        os.environ["MEMESH_DB_PATH"] = str(db)
        start = time.perf_counter()
        for index in range(args.n):
            handle_memory_command(
                {"command": "create", "path": f"/memories/team/note {index}.md", "file_text": f"fact {index}\nmore"}
            )
        fill = time.perf_counter() - start
        print(f"fill: {args.n} creates in {fill:.2f} s ({ms(fill / args.n):.1f} ms per create)")
        cases: dict[str, dict[str, object]] = {
            "view /memories": {"command": "view", "path": "/memories"},
            f"view /memories/team ({args.n} listed)": {"command": "view", "path": "/memories/team"},
            "view one memory": {"command": "view", "path": "/memories/team/note 1.md"},
            "str_replace": {
                "command": "str_replace",
                "path": "/memories/team/note 2.md",
                "old_str": "more",
                "new_str": "more",
            },
        }
        for label, command in cases.items():
            samples = timed(partial(handle_memory_command, command), args.repeat)
            print(f"{label}: median {ms(median(samples)):.1f} ms, max {ms(max(samples)):.1f} ms")
        env = {**os.environ, "MEMESH_DB_PATH": str(db)}
        turn = json.dumps({"user": "which db?", "assistant": "We decided to use SQLite."})
        call = {"function": {"name": "write_file", "arguments": json.dumps({"path": "a.py"})}}
        session = json.dumps({"messages": [{"role": "assistant", "tool_calls": [call] * 25}]})
        for label, argv, stdin in (
            ("memesh hermes capture-turn", ["capture-turn", "--session", "bench"], turn),
            ("memesh hermes capture-session", ["capture-session", "--session", "bench"], session),
        ):
            run = [str(BIN / "memesh"), "hermes", *argv]
            process = partial(subprocess.run, run, input=stdin, env=env, capture_output=True, text=True, check=True)
            samples = timed(process, max(3, args.repeat // 2))
            print(f"{label} (new process): median {ms(median(samples)):.1f} ms, max {ms(max(samples)):.1f} ms")


if __name__ == "__main__":
    main()
