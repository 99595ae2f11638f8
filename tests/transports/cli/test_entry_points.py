"""Every way a user starts the CLI: `memesh --version`/`-V`, `python -m memesh`, and `--help` naming memesh-mcp."""

from __future__ import annotations

import subprocess
import sys
from typing import TYPE_CHECKING

import pytest

from memesh import __version__
from tests.transports.cli.conftest import MEMESH_BIN

if TYPE_CHECKING:
    from tests.transports.cli.conftest import Process


@pytest.mark.one_engine("prints the version: no store is opened")
@pytest.mark.parametrize("flag", ["--version", "-V"])
def test_version_prints_the_version_and_exits_0(memesh_process: Process, flag: str) -> None:
    done = memesh_process(flag)
    assert (done.code, done.out) == (0, f"{__version__}\n")


def test_python_dash_m_memesh_runs_the_same_cli(memesh_process: Process) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "memesh", "remember", "via python -m", "--json"],
        cwd=memesh_process.cwd,
        env=memesh_process.env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert memesh_process("recall", "python", "--json").json()["entities"][0]["title"] == "via python -m"


@pytest.mark.one_engine("prints the help: no store is opened")
def test_help_ends_with_the_absolute_path_of_memesh_mcp(memesh_process: Process) -> None:
    done = memesh_process("--help")
    assert done.code == 0
    assert str(MEMESH_BIN.with_name("memesh-mcp")) in done.out.splitlines()[-1]
