"""memesh installed with the tools Python users install applications with: `uv tool install .`, `uvx --from .`,
`pipx install .` and a wheel built by `python -m build`. Each gives working `memesh`, `memesh-mcp` and `memesh-hook`.

uv and pipx resolve the dependencies from the package index, as they do for a user (these tests need the network,
as `make install` does); their caches are shared by the tests of one session and live in its own temporary folder,
and every install goes into folders of the test's own. The source is a copy of exactly the files a wheel is built
from, so builds never run inside the checkout (setuptools builds in-tree, where two builds at once collide).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from memesh import __version__
from memesh.app.registry import TOOLS
from tests.payload_tool import plugin_payload
from tests.test_install import tool_names, venv_with

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
COMMANDS = ("memesh", "memesh-mcp", "memesh-hook")


@pytest.fixture(scope="module")
def source(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the files the package is built from (what a clean clone holds of them)."""
    target = tmp_path_factory.mktemp("source") / "memesh-python"
    plugin_payload.copy_sources(target)
    return target


@pytest.fixture(scope="module")
def caches(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    folder = tmp_path_factory.mktemp("caches")
    return {"UV_CACHE_DIR": str(folder / "uv"), "PIP_CACHE_DIR": str(folder / "pip")}


def tool_env(tmp_path: Path, caches: dict[str, str]) -> dict[str, str]:
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    # The rest of the environment as the user has it (this session's already names a home of its own): an index
    # mirror, its certificate authority or a proxy reach the installers the way they reach a user's.
    return {
        **os.environ,
        "PATH": f"{BIN}:/usr/bin:/bin",
        "HOME": str(home),
        "MEMESH_DIR": str(home / ".memesh"),
        "UV_TOOL_DIR": str(tmp_path / "uv-tools"),
        "UV_TOOL_BIN_DIR": str(tmp_path / "uv-bin"),
        "UV_PYTHON": sys.executable,
        "UV_PYTHON_DOWNLOADS": "never",
        "PIPX_HOME": str(tmp_path / "pipx-home"),
        "PIPX_BIN_DIR": str(tmp_path / "pipx-bin"),
        "PIPX_DEFAULT_PYTHON": sys.executable,
        **caches,
    }


def install(command: list[str], env: dict[str, str], cwd: Path) -> None:
    done = subprocess.run(command, env=env, cwd=cwd, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr[-2000:]


def assert_the_three_commands_work(bin_dir: Path, tmp_path: Path) -> None:
    for command in COMMANDS:
        assert (bin_dir / command).is_file(), command
    assert tool_names(bin_dir, tmp_path) == [tool.name for tool in TOOLS]
    env = {
        "MEMESH_DAEMON": "0",
        "PATH": "/usr/bin:/bin",
        "HOME": str(tmp_path / "home"),
        "MEMESH_DIR": str(tmp_path / "home" / ".memesh"),
    }
    version = subprocess.run(
        [str(bin_dir / "memesh"), "--version"], env=env, capture_output=True, text=True, check=False
    )
    assert (version.returncode, version.stdout.strip()) == (0, __version__)
    event = {"session_id": "install", "hook_event_name": "SessionStart", "cwd": str(tmp_path), "source": "startup"}
    hook = subprocess.run(
        [str(bin_dir / "memesh-hook"), "session-start"],
        input=json.dumps(event),
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert hook.returncode == 0, hook.stderr
    outcomes = (tmp_path / "home" / ".memesh" / "hook-outcomes.jsonl").read_text().splitlines()
    assert [json.loads(line)["hook"] for line in outcomes] == ["session-start"]


def test_uv_tool_install_gives_memesh_memesh_mcp_and_memesh_hook(
    source: Path, caches: dict[str, str], tmp_path: Path
) -> None:
    env = tool_env(tmp_path, caches)
    install([str(BIN / "uv"), "tool", "install", "--quiet", str(source)], env, tmp_path)
    assert_the_three_commands_work(tmp_path / "uv-bin", tmp_path)


def test_uvx_from_a_checkout_runs_memesh_mcp(source: Path, caches: dict[str, str], tmp_path: Path) -> None:
    env = tool_env(tmp_path, caches)
    opening = [
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-11-25",
                "capabilities": {},
                "clientInfo": {"name": "t", "version": "1"},
            },
        },
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
    ]
    done = subprocess.run(
        [str(BIN / "uvx"), "--quiet", "--from", str(source), "memesh-mcp"],
        input="".join(json.dumps(message) + "\n" for message in opening),
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    answers = {message.get("id"): message for message in map(json.loads, done.stdout.splitlines())}
    assert [tool["name"] for tool in answers[2]["result"]["tools"]] == [tool.name for tool in TOOLS]


def test_pipx_install_gives_memesh_memesh_mcp_and_memesh_hook(
    source: Path, caches: dict[str, str], tmp_path: Path
) -> None:
    env = tool_env(tmp_path, caches)
    install([str(BIN / "pipx"), "install", "--quiet", str(source)], env, tmp_path)
    assert_the_three_commands_work(tmp_path / "pipx-bin", tmp_path)


def test_a_wheel_built_with_python_m_build_installs_the_three_commands(source: Path, tmp_path: Path) -> None:
    dist = tmp_path / "dist"
    # --no-isolation: the build backend (setuptools) comes from this venv, so the build needs no network.
    install(
        [sys.executable, "-m", "build", "--wheel", "--no-isolation", "-o", str(dist), str(source)],
        {**os.environ},
        tmp_path,
    )
    (wheel,) = dist.glob("memesh-*-py3-none-any.whl")
    assert_the_three_commands_work(venv_with(tmp_path, str(wheel)), tmp_path)
