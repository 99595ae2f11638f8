"""`memesh-mcp` as a person meets it: --version and --help answer at once, and a client is told how to use it."""

from __future__ import annotations

import re
import subprocess
import sys
from typing import TYPE_CHECKING

import pytest
from mcp import Client

from memesh import __version__
from memesh.transports.mcp.backend import Backend
from memesh.transports.mcp.server import build_server
from tests.transports.mcp.conftest import LEGACY, SERVER

if TYPE_CHECKING:
    from tests.transports.mcp.conftest import McpInMemory

ANSWER_SECONDS = 20  # a server waiting on stdin would never answer: the stdin pipe below stays open


def run_server(*argv: str) -> subprocess.CompletedProcess[str]:
    """The installed script, run by this interpreter with -X importtime, stdin left open as a terminal's is."""
    with subprocess.Popen(
        [sys.executable, "-X", "importtime", str(SERVER), *argv],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    ) as process:
        out, err = process.communicate(timeout=ANSWER_SECONDS)  # never closes stdin first: communicate(None)
        return subprocess.CompletedProcess(process.args, process.returncode, out, err)


def imported(importtime: str) -> set[str]:
    return {line.rsplit("|", 1)[-1].strip() for line in importtime.splitlines() if line.startswith("import time:")}


@pytest.mark.parametrize("flag", ["--version", "-V"])
def test_version_prints_and_exits_without_importing_the_sdk(flag: str) -> None:
    done = run_server(flag)
    assert (done.returncode, done.stdout) == (0, f"{__version__}\n")
    assert "mcp" not in imported(done.stderr)


@pytest.mark.parametrize("flag", ["--help", "-h"])
def test_help_names_the_absolute_path_to_put_in_a_client_config(flag: str) -> None:
    done = run_server(flag)
    assert done.returncode == 0
    assert done.stdout.startswith("usage: memesh-mcp")
    assert f"  {SERVER}\n" in done.stdout
    assert "mcp" not in imported(done.stderr)


def test_an_unknown_argument_is_a_usage_error() -> None:
    done = run_server("--port", "3")
    assert done.returncode == 2
    assert re.search(r"unexpected argument '--port'", done.stderr)


INSTRUCTED = ("recall", "remember", "[mem:")


@pytest.mark.anyio
@pytest.mark.one_engine("initialize: no store is read")
async def test_initialize_carries_instructions_on_using_the_memory(mcp_server: McpInMemory, era: str) -> None:
    server = build_server(Backend(mcp_server.target))
    async with Client(server, mode="legacy" if era == LEGACY else "auto") as client:
        assert client.protocol_version == era
        instructions = client.instructions
    assert instructions is not None
    for words in INSTRUCTED:
        assert words in instructions
