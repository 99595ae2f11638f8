"""memesh installed the ways a user installs it, each into a venv of its own: the commands start and serve.

A fresh venv gets memesh with --no-deps and --no-build-isolation, and sees this venv's site-packages (the
dependencies and setuptools) through a .pth line, so an install takes seconds and needs no network.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import anyio
import pytest
from mcp import ClientSession, StdioServerParameters, stdio_client

from memesh import __version__
from memesh.app.registry import TOOLS

ROOT = Path(__file__).resolve().parent.parent


def venv_with(tmp_path: Path, *install: str) -> Path:
    """A new venv's bin folder, after `pip install <install...>` of this checkout into it."""
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, capture_output=True)
    purelib = subprocess.run(
        [str(venv / "bin" / "python"), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    # A plain path line: the dependencies become importable, but that site's own .pth files (this checkout's
    # strict editable install among them) are not processed, so memesh comes only from the install under test.
    (Path(purelib) / "zz_dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n", encoding="utf-8")
    done = subprocess.run(
        [str(venv / "bin" / "python"), "-m", "pip", "install", "-q", "--no-deps", "--no-build-isolation", *install],
        capture_output=True,
        text=True,
        cwd=tmp_path,  # not the checkout: its bare memesh/ folder must not be what answers
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return venv / "bin"


def tool_names(bin_dir: Path, tmp_path: Path) -> list[str]:
    """The tools `memesh-mcp` from `bin_dir` lists to the mcp SDK's client over stdio."""
    params = StdioServerParameters(
        command=str(bin_dir / "memesh-mcp"),
        env={"MEMESH_DAEMON": "0", "MEMESH_DB_PATH": str(tmp_path / "knowledge-graph.db")},
        cwd=str(tmp_path),
    )

    async def listing() -> list[str]:
        with (tmp_path / "stderr.log").open("a", encoding="utf-8") as errlog:
            async with stdio_client(params, errlog=errlog) as (read, write), ClientSession(read, write) as session:
                await session.initialize()
                return [tool.name for tool in (await session.list_tools()).tools]

    return anyio.run(listing)


def assert_it_runs(bin_dir: Path, tmp_path: Path) -> None:
    assert tool_names(bin_dir, tmp_path) == [tool.name for tool in TOOLS]
    version = subprocess.run(
        [str(bin_dir / "memesh"), "--version"], capture_output=True, text=True, cwd=tmp_path, check=False
    )
    assert (version.returncode, version.stdout.strip()) == (0, __version__)


@pytest.mark.parametrize(
    "install",
    [
        pytest.param(["-e", str(ROOT)], id="plain-editable"),
        pytest.param([str(ROOT)], id="non-editable (pip install . / pipx install .)"),
    ],
)
def test_an_installed_memesh_mcp_serves_the_schema_files_and_memesh_answers(tmp_path: Path, install: list[str]) -> None:
    assert_it_runs(venv_with(tmp_path, *install), tmp_path)


def test_bare_make_installs_and_ends_by_naming_the_memesh_mcp_path() -> None:
    """A dry run (`make -n`: nothing is executed), so the venv running this test is not reinstalled under it."""
    if shutil.which("make") is None:
        pytest.skip("make is not installed")
    env = {key: value for key, value in os.environ.items() if not key.startswith("MAKE")}  # under `make test` too
    planned = subprocess.run(
        ["make", "-n", "--no-print-directory"], cwd=ROOT, env=env, capture_output=True, text=True, check=True
    ).stdout
    assert planned.splitlines()[-1] == f'echo "MCP server for your client\'s config: {ROOT}/.venv/bin/memesh-mcp"'
