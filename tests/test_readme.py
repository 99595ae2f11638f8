"""Every shell example in README.md runs as written, in README order, against a fresh home folder and database.

A ```bash block preceded by `<!-- readme-test: run -->` is run line by line (a line ending in `\\` continues) with
bash, in a folder named `memesh`, with HOME in the test's folder and no MEMESH_* variables, and each line must exit 0.
A block preceded by `<!-- readme-test: skip <reason> -->` is not run; an unmarked bash block fails the test.
What a reader fills in or has already, the test supplies:
- the HTTP examples' server: `memesh serve` on a free loopback port, started before the first curl; a `memesh serve`
  line in an example is started in the background on a free port of its own, and its `server:3737` is that port;
- `memesh~<32 hex>`: the project id `memesh task --json` gives in that folder;
- `<slug>`: a Claude Code memory folder holding one note file; `team.json`, `old.json`: bundles someone gave you;
- the `[y/N]` that `--trust` asks (without `--yes`): answered `y` on a terminal.
"""

from __future__ import annotations

import json
import os
import pty
import re
import shlex
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import pytest

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
BIN = Path(sys.executable).parent
MARK = re.compile(r"^<!-- readme-test: (run|skip [^>]+) -->$")
LINE_SECONDS = 120
SLUG = "-home-you-myapp"
NOTE = "---\nname: deploy-notes\ndescription: How we deploy\n---\n\nTag first, then push.\n"


@dataclass
class Block:
    line: int  # where it starts in README.md, for the failure message
    mark: str | None
    commands: list[str]


def blocks(text: str) -> list[Block]:
    """Every ```bash block with the mark on the line before it (None when unmarked) and its command lines."""
    found: list[Block] = []
    lines = text.splitlines()
    index = 0
    while index < len(lines):
        if lines[index].strip() == "```bash":
            mark = MARK.match(lines[index - 1].strip()) if index else None
            body: list[str] = []
            index += 1
            while lines[index].strip() != "```":
                body.append(lines[index].strip())
                index += 1
            found.append(Block(index - len(body), mark.group(1) if mark else None, commands(body)))
        index += 1
    return found


def commands(body: list[str]) -> list[str]:
    """Command lines, a trailing backslash joining the next; blank and comment-only lines dropped."""
    joined: list[str] = []
    pending = ""
    for line in body:
        if line.endswith("\\"):
            pending += line[:-1] + " "
            continue
        command = (pending + line).strip()
        pending = ""
        if command and not command.startswith("#"):
            joined.append(command)
    return joined


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@dataclass
class Reader:
    """The reader's machine: a folder named memesh, a home of their own, the servers they started."""

    folder: Path
    home: Path
    env: dict[str, str]
    servers: list[subprocess.Popen[bytes]] = field(default_factory=list)
    substitutions: dict[str, str] = field(default_factory=dict)

    def run(self, command: str) -> subprocess.CompletedProcess[str]:
        if "--trust" in command and "--yes" not in command:
            return self.at_terminal(command, typed="y\n")
        return subprocess.run(
            ["bash", "-c", command],
            cwd=self.folder,
            env=self.env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=LINE_SECONDS,
            check=False,
        )

    def at_terminal(self, command: str, typed: str) -> subprocess.CompletedProcess[str]:
        controller, terminal = pty.openpty()
        try:
            os.write(controller, typed.encode())
            return subprocess.run(
                ["bash", "-c", command],
                cwd=self.folder,
                env=self.env,
                stdin=terminal,
                capture_output=True,
                text=True,
                timeout=LINE_SECONDS,
                check=False,
            )
        finally:
            os.close(terminal)
            os.close(controller)

    def serve(self, command: str) -> int:
        """Start a `memesh serve …` line in the background on a free port; the port, once it answers."""
        port = free_port()
        args = [*shlex.split(command, comments=True)[1:], "--port", str(port)]
        host = "127.0.0.1"
        server = subprocess.Popen(
            [str(BIN / "memesh"), *args],
            cwd=self.folder,
            env=self.env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        self.servers.append(server)
        token_file = self.home / ".memesh" / "remote-token"
        deadline = time.monotonic() + LINE_SECONDS
        while time.monotonic() < deadline:
            assert server.poll() is None, f"{command!r} exited with {server.returncode}"
            headers = {"Authorization": f"Bearer {token_file.read_text().strip()}"} if token_file.exists() else {}
            try:
                httpx.get(f"http://{host}:{port}/v1/health", headers=headers, timeout=2)
                return port
            except httpx.TransportError:
                time.sleep(0.1)  # polling a server coming up: nothing else says when it listens
        raise AssertionError(f"{command!r} did not answer within {LINE_SECONDS} s")

    def stop(self) -> None:
        for server in self.servers:
            server.terminate()
            server.wait(timeout=LINE_SECONDS)


@pytest.fixture
def reader(tmp_path: Path) -> Iterator[Reader]:
    home = tmp_path / "home"
    folder = tmp_path / "memesh"
    folder.mkdir()
    notes = home / ".claude" / "projects" / SLUG / "memory"
    notes.mkdir(parents=True)
    (notes / "deploy.md").write_text(NOTE, encoding="utf-8")
    env = {key: value for key, value in os.environ.items() if (not key.startswith("MEMESH_") or key == "MEMESH_DAEMON")}
    env.update(HOME=str(home), PATH=f"{BIN}{os.pathsep}{env.get('PATH', '')}", PYTHONIOENCODING="utf-8")
    machine = Reader(folder, home, env, substitutions={"<slug>": SLUG})
    try:
        yield machine
    finally:
        machine.stop()


def test_every_bash_block_in_the_readme_is_marked_run_or_skip_with_a_reason() -> None:
    unmarked = [block.line for block in blocks(README.read_text(encoding="utf-8")) if block.mark is None]
    assert unmarked == [], f"README.md bash blocks without a readme-test mark, at lines {unmarked}"


def test_every_runnable_readme_example_runs_as_written_in_order(reader: Reader) -> None:
    ran = 0
    for block in blocks(README.read_text(encoding="utf-8")):
        if block.mark != "run":
            continue
        for written in block.commands:
            command = written
            if written.startswith("memesh serve"):
                reader.substitutions["server:3737"] = f"127.0.0.1:{reader.serve(written)}"
                continue
            if "127.0.0.1:3737" in command and "127.0.0.1:3737" not in reader.substitutions:
                reader.substitutions["127.0.0.1:3737"] = f"127.0.0.1:{reader.serve('memesh serve')}"
            if "<32 hex>" in command and "memesh~<32 hex>" not in reader.substitutions:
                reader.substitutions["memesh~<32 hex>"] = json.loads(reader.run("memesh task --json").stdout)["project"]
            if "team.json" in command or "old.json" in command:
                for given in ("team.json", "old.json"):
                    if not (reader.folder / given).exists():
                        shutil.copy(reader.home / "memesh-backup.json", reader.folder / given)
            for placeholder, value in reader.substitutions.items():
                command = command.replace(placeholder, value)
            done = reader.run(command)
            where = f"README.md line {block.line}: {written}\nstdout: {done.stdout}\nstderr: {done.stderr}"
            assert done.returncode == 0, where
            if command.startswith("curl") and ">" not in command:
                assert json.loads(done.stdout)["success"] is True, where
            ran += 1
    assert ran >= 40  # the examples were found and run, not silently skipped
