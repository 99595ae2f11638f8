"""Two ways to run the CLI: in this process (Cyclopts returning the exit status) and as the installed script."""

from __future__ import annotations

import json
import os
import pty
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from memesh.transports.cli.app import run
from tests.backends import Backend

MEMESH_BIN = Path(sys.executable).parent / "memesh"


@dataclass(frozen=True)
class Outcome:
    code: int
    out: str
    err: str

    def json(self) -> Any:
        return json.loads(self.out)


class Cli:
    """`cli("recall", "x", "--json")` runs one command line in-process against the test's own database."""

    def __init__(self, capsys: pytest.CaptureFixture[str]) -> None:
        self.capsys = capsys

    def __call__(self, *argv: str) -> Outcome:
        self.capsys.readouterr()
        code = run(argv)
        captured = self.capsys.readouterr()
        return Outcome(code, captured.out, captured.err)

    def ok(self, *argv: str) -> Outcome:
        outcome = self(*argv)
        assert outcome.code == 0, outcome
        return outcome


@pytest.fixture
def cli(memesh_env: Path, capsys: pytest.CaptureFixture[str]) -> Cli:
    return Cli(capsys)


class Process:
    """Runs `.venv/bin/memesh` as a real process, in the test's folder, with the test's database."""

    def __init__(self, cwd: Path, env: dict[str, str], backend: Backend) -> None:
        self.cwd = cwd
        self.env = env
        self.backend = backend

    def use_database(self, db: Path) -> None:
        """Run later commands on another database: the file `db`, or on PostgreSQL the test's database for it."""
        self.env["MEMESH_DB_PATH"] = str(db)
        self.env.pop("MEMESH_DATABASE_URL", None)
        self.env.update(self.backend.environ(db))

    def __call__(self, *argv: str, stdin: str | None = None) -> Outcome:
        done = subprocess.run(
            [str(MEMESH_BIN), *argv],
            cwd=self.cwd,
            env=self.env,
            input=stdin,
            capture_output=True,
            text=True,
            check=False,
        )
        return Outcome(done.returncode, done.stdout, done.stderr)

    def at_terminal(self, *argv: str, typed: str) -> Outcome:
        """Runs with stdin on a pseudo-terminal where `typed` is already waiting (stdout and stderr are pipes)."""
        controller, terminal = pty.openpty()
        try:
            os.write(controller, typed.encode())
            done = subprocess.run(
                [str(MEMESH_BIN), *argv],
                cwd=self.cwd,
                env=self.env,
                stdin=terminal,
                capture_output=True,
                text=True,
                check=False,
            )
        finally:
            os.close(terminal)
            os.close(controller)
        return Outcome(done.returncode, done.stdout, done.stderr)


@pytest.fixture
def memesh_process(tmp_path: Path, backend: Backend) -> Process:
    """The installed script on the test's own database: the file, or on PostgreSQL the test's database (named by
    MEMESH_DATABASE_URL beside MEMESH_DB_PATH, whose folder keeps the local files)."""
    home = tmp_path / "home"
    db = home / ".memesh" / "knowledge-graph.db"
    env = {
        key: value
        for key, value in os.environ.items()
        if (not key.startswith("MEMESH_") or key == "MEMESH_DAEMON") and key not in ("HOME",)
    }
    env.update(
        {
            "HOME": str(home),
            "MEMESH_DIR": str(home / ".memesh"),
            "MEMESH_DB_PATH": str(db),
            "PYTHONIOENCODING": "utf-8",
            **backend.environ(db),
        }
    )
    return Process(tmp_path, env, backend)
