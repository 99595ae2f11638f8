"""The plugin payload (tools/plugin_payload.py): what a plugin install copies, and the environment it builds itself.

The payload is built once for this module. Its launchers run as a host runs them, with only /usr/bin:/bin on PATH
and a HOME of the test's own: the first start builds MeMesh's environment from the payload's wheel (its
dependencies from the package index, so that one test needs the network, as `make install` does), later starts
reuse it, and a build that cannot reach the index says so once and records it where doctor looks.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import anyio
import pytest
from mcp import ClientSession, StdioServerParameters, stdio_client, types

from memesh.app.registry import TOOLS
from tests.payload_tool import plugin_payload

ROOT = Path(__file__).resolve().parent.parent


MAX_PAYLOAD_BYTES = 10 * 1000 * 1000
EXPECTED_FILES = {
    ".claude-plugin/plugin.json",
    ".claude-plugin/mcp.json",
    ".codex-plugin/plugin.json",
    ".codex-plugin/mcp.json",
    "hooks/hooks.json",
    "skills/memesh/SKILL.md",
    "skills/memesh-review/SKILL.md",
    "bin/memesh",
    "bin/memesh-mcp",
    "bin/memesh-hook",
    "lib/find-python",
    "lib/memesh-bootstrap",
    "lib/memesh-first-start",
    "README.md",
    "PAYLOAD",
}
UNREACHABLE_INDEX = {"PIP_INDEX_URL": "http://127.0.0.1:9/simple", "PIP_RETRIES": "0", "PIP_TIMEOUT": "2"}


@pytest.fixture(scope="module")
def payload(tmp_path_factory: pytest.TempPathFactory) -> Path:
    built: Path = plugin_payload.build(tmp_path_factory.mktemp("payload") / "plugin")
    return built


@pytest.fixture(scope="module")
def pip_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("pip-cache")


def host_env(home: Path, **extra: str) -> dict[str, str]:
    """What a host gives the plugin's commands: a bare PATH, its HOME, the plugin root; nothing of this venv."""
    return {"PATH": "/usr/bin:/bin", "HOME": str(home), "MEMESH_DIR": str(home / ".memesh"), **extra}


def records(home: Path) -> list[dict[str, object]]:
    path = home / ".memesh" / "hook-outcomes.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def files(folder: Path) -> Iterator[str]:
    for path in folder.rglob("*"):
        if path.is_file():
            yield str(path.relative_to(folder))


def test_the_payload_holds_only_what_runs_and_stays_under_10_mb(payload: Path) -> None:
    found = set(files(payload))
    wheels = {name for name in found if name.startswith("wheels/")}
    assert found - wheels == EXPECTED_FILES
    assert len(wheels) == 1 and next(iter(wheels)).endswith("-py3-none-any.whl")
    assert sum((payload / name).stat().st_size for name in found) <= MAX_PAYLOAD_BYTES
    for name in ("bin/memesh", "bin/memesh-mcp", "bin/memesh-hook"):
        assert os.access(payload / name, os.X_OK), name
    for manifest in (".claude-plugin/plugin.json", ".codex-plugin/plugin.json"):
        assert json.loads((payload / manifest).read_text())["name"] == "memesh"


def test_the_marketplace_entry_points_at_the_payload_and_describes_itself() -> None:
    marketplace = json.loads((ROOT / ".claude-plugin" / "marketplace.json").read_text())
    assert marketplace["description"]
    (entry,) = marketplace["plugins"]
    assert (entry["name"], entry["source"]) == ("memesh", "./plugin")
    assert "/plugin/" in (ROOT / ".gitignore").read_text().splitlines()


def test_a_payload_is_named_by_its_sources_so_an_upgrade_builds_a_new_environment(tmp_path: Path) -> None:
    copy = tmp_path / "checkout"
    copy.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copyfile(ROOT / name, copy / name)
    for folder in plugin_payload.SOURCES:
        shutil.copytree(ROOT / folder, copy / folder, ignore=shutil.ignore_patterns("__pycache__"))
    assert plugin_payload.digest(copy) == plugin_payload.digest(ROOT)
    (copy / "memesh" / "core" / "scoring.py").write_text((ROOT / "memesh/core/scoring.py").read_text() + "\n# v2\n")
    assert plugin_payload.digest(copy) != plugin_payload.digest(ROOT)


class Opening:
    """When a started server answered initialize and tools/list (seconds since it started), and what it listed."""

    def __init__(self) -> None:
        self.initialized = self.listed = float("inf")
        self.tools: list[str] = []
        self.call: types.CallToolResult | None = None


def open_session(command: Path, env: dict[str, str], errlog_path: Path, call: str | None = None) -> Opening:
    """A session as a host opens one: initialize, tools/list, and optionally one tool call, then the end of stdin."""
    params = StdioServerParameters(command=str(command), env=env, cwd=str(errlog_path.parent))
    opening = Opening()

    async def run() -> None:
        started = time.monotonic()
        with errlog_path.open("w", encoding="utf-8") as errlog:
            async with stdio_client(params, errlog=errlog) as (read, write), ClientSession(read, write) as session:
                await session.initialize()
                opening.initialized = time.monotonic() - started
                opening.tools = [tool.name for tool in (await session.list_tools()).tools]
                opening.listed = time.monotonic() - started
                if call is not None:
                    opening.call = await session.call_tool(call, {"query": "retries"})

    anyio.run(run)
    return opening


def test_the_first_start_answers_at_once_builds_in_the_background_and_hands_the_session_to_memesh_mcp(
    payload: Path, pip_cache: Path, tmp_path: Path
) -> None:
    home = tmp_path / "home"
    runtime = home / ".memesh" / "runtime"
    # Environments of two older payloads: the build keeps the newest other one (a session started before the
    # upgrade may still run from it) and removes the rest.
    for age, name in enumerate(("env-older", "env-previous")):
        (runtime / name / "bin").mkdir(parents=True)
        os.utime(runtime / name, (time.time() - 1000 + age * 100,) * 2)
    env = host_env(home, CLAUDE_PLUGIN_ROOT=str(payload), PIP_CACHE_DIR=str(pip_cache))
    # A call made before the environment is ready waits for it (a budget long enough for any build here), and the
    # real server answers it.
    first_log = tmp_path / "first-start.log"
    first = open_session(
        payload / "bin" / "memesh-mcp", {**env, "MEMESH_FIRST_START_WAIT_SECONDS": "600"}, first_log, call="recall"
    )
    assert first.initialized <= 5 and first.listed <= 10
    assert first.tools == [tool.name for tool in TOOLS]
    assert first.call is not None and first.call.is_error is False
    assert first.call.structured_content is not None and first.call.structured_content["entities"] == []
    stamp = (payload / "PAYLOAD").read_text().split()[0]
    built = runtime / f"env-{stamp}"
    assert (built / ".ready").exists()
    assert sorted(path.name for path in runtime.glob("env-*")) == sorted([built.name, "env-previous"])
    assert [(r["hook"], r["outcome"]) for r in records(home)] == [("bootstrap", "wrote")]

    ready_since = (built / ".ready").stat().st_mtime
    second_log = tmp_path / "second-start.log"
    second = open_session(payload / "bin" / "memesh-mcp", env, second_log)
    assert second.listed <= 3 and second.tools == first.tools
    assert "setting up" not in second_log.read_text()
    assert (built / ".ready").stat().st_mtime == ready_since
    assert len(records(home)) == 1

    # The plugin's CLI (on the agent's PATH through the host) runs from the same environment, building nothing.
    version = subprocess.run(
        [str(payload / "bin" / "memesh"), "--version"], env=env, capture_output=True, text=True, check=False
    )
    assert (version.returncode, version.stderr) == (0, "")
    # And the hook command execs that environment's memesh-hook: the SessionStart runs (its own outcome record)
    # and exits 0, without a second build.
    event = {"session_id": "plugin", "hook_event_name": "SessionStart", "cwd": str(tmp_path), "source": "startup"}
    hook = subprocess.run(
        [str(payload / "bin" / "memesh-hook"), "session-start"],
        input=json.dumps(event),
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert hook.returncode == 0, hook.stderr
    assert [r["hook"] for r in records(home)] == ["bootstrap", "session-start"]
    assert len(list(runtime.glob("env-*"))) == 2


def slow_uv(folder: Path, seconds: int) -> Path:
    """A `uv` that takes `seconds` and fails: a build that is still under way while the test looks."""
    folder.mkdir(parents=True)
    uv = folder / "uv"
    uv.write_text(f"#!/bin/sh\nsleep {seconds}\nexit 1\n")
    uv.chmod(0o755)
    return folder


def test_a_tool_called_while_the_environment_builds_past_the_budget_says_how_long_is_left(
    payload: Path, tmp_path: Path
) -> None:
    home = tmp_path / "home"
    tools = slow_uv(tmp_path / "slow", 8)
    env = host_env(home, CLAUDE_PLUGIN_ROOT=str(payload), MEMESH_FIRST_START_WAIT_SECONDS="1")
    env["PATH"] = f"{tools}:{env['PATH']}"
    opening = open_session(payload / "bin" / "memesh-mcp", env, tmp_path / "server.log", call="recall")
    assert opening.tools == [tool.name for tool in TOOLS]
    assert opening.call is not None and opening.call.is_error is True
    (content,) = opening.call.content
    assert isinstance(content, types.TextContent)
    left = re.search(r"about (\d+) s left", content.text)
    assert left is not None and 5 <= int(left.group(1)) <= 75


def test_a_build_that_cannot_reach_the_package_index_says_so_once_and_records_it_for_doctor(
    payload: Path, tmp_path: Path
) -> None:
    home = tmp_path / "home"
    env = host_env(home, CLAUDE_PLUGIN_ROOT=str(payload), **UNREACHABLE_INDEX)
    done = subprocess.run(
        [str(payload / "bin" / "memesh"), "--version"], env=env, capture_output=True, text=True, check=False
    )
    assert done.returncode == 1
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 2 and "setting up its Python environment" in lines[0]
    assert lines[1].startswith("memesh: could not set up MeMesh's environment: the package index could not be reached")
    ((hook, outcome, reason),) = [(r["hook"], r["outcome"], r["reason"]) for r in records(home)]
    assert (hook, outcome) == ("bootstrap", "error") and "package index could not be reached" in str(reason)
    assert list((home / ".memesh" / "runtime").glob("env-*")) == []  # nothing half-built is left
    assert (home / ".memesh").stat().st_mode & 0o777 == 0o700


def test_a_hook_never_waits_for_the_build_it_starts_in_the_background(payload: Path, tmp_path: Path) -> None:
    home = tmp_path / "home"
    env = host_env(home, CLAUDE_PLUGIN_ROOT=str(payload), **UNREACHABLE_INDEX)
    event = {"session_id": "plugin", "hook_event_name": "SessionStart", "cwd": str(tmp_path), "source": "startup"}
    done = subprocess.run(
        [str(payload / "bin" / "memesh-hook"), "session-start"],
        input=json.dumps(event),
        env=env,
        capture_output=True,
        text=True,
        check=False,
        timeout=10,
    )
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
    deadline = time.monotonic() + 120
    while not records(home) and time.monotonic() < deadline:  # the background build's own record
        time.sleep(0.5)
    assert [(r["hook"], r["outcome"]) for r in records(home)] == [("bootstrap", "error")]


def test_a_host_that_ends_the_first_session_at_once_leaves_the_build_running_and_a_call_reports_its_failure(
    payload: Path, tmp_path: Path
) -> None:
    """`claude mcp list` opens a session, lists the tools and stops the server: the build it started goes on (here
    to its failure, recorded for doctor), and a later first-start session's tool call says the build failed."""
    home = tmp_path / "home"
    env = host_env(home, CLAUDE_PLUGIN_ROOT=str(payload), **UNREACHABLE_INDEX)
    checked = open_session(payload / "bin" / "memesh-mcp", env, tmp_path / "check.log")
    assert checked.initialized <= 5 and checked.tools == [tool.name for tool in TOOLS]
    deadline = time.monotonic() + 120
    while not records(home) and time.monotonic() < deadline:
        time.sleep(0.5)
    assert [(r["hook"], r["outcome"]) for r in records(home)] == [("bootstrap", "error")]
    session = open_session(payload / "bin" / "memesh-mcp", env, tmp_path / "session.log", call="recall")
    assert session.call is not None and session.call.is_error is True
    assert len(records(home)) >= 2 and {r["outcome"] for r in records(home)} == {"error"}


def test_a_marketplace_written_outside_the_checkout_holds_the_catalog_and_a_current_payload(tmp_path: Path) -> None:
    folder = tmp_path / "marketplace"
    assert plugin_payload.main(["--marketplace", str(folder)]) == 0
    catalog = json.loads((folder / ".claude-plugin" / "marketplace.json").read_text())
    (entry,) = catalog["plugins"]
    assert (folder / entry["source"] / "PAYLOAD").exists()
    assert plugin_payload.main(["--check", "--out", str(folder / "plugin")]) == 0
