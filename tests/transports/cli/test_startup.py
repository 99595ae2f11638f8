"""What a command loads: the heavy server stacks stay off the path of a command that needs none, the hot commands
(recall, remember, briefing) run without Cyclopts, and a command Cyclopts runs imports only its own declarations."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from memesh.transports.cli.commands import DECLARED, WITHOUT_CYCLOPTS

HEAVY = ("mcp", "granian", "starlette", "jsonschema", "pydantic", "rich", "anyio", "httpx")

PROBE = """
import contextlib, io, json, sys
from memesh.transports.cli.app import main
with contextlib.redirect_stdout(io.StringIO()):
    code = main(["recall", "x", "--json"])
print(json.dumps({"code": code, "modules": sorted({name.split(".")[0] for name in sys.modules})}))
"""


def test_recall_json_imports_none_of_the_heavy_stacks(memesh_env: Path, tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-c", PROBE], cwd=tmp_path, env=dict(os.environ), capture_output=True, text=True, check=True
    )
    report = json.loads(done.stdout)
    assert report["code"] == 0
    assert [name for name in HEAVY if name in report["modules"]] == []


COMMAND_LINE = """
import contextlib, io, json, sys
from memesh.transports.cli.app import main
with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
    code = main(json.loads(sys.argv[1]))
print(json.dumps({"code": code, "modules": sorted(sys.modules)}))
"""


def _modules(argv: list[str], cwd: Path) -> tuple[int, list[str]]:
    """The exit status of `memesh <argv>` run in a fresh interpreter, and every module it imported."""
    done = subprocess.run(
        [sys.executable, "-c", COMMAND_LINE, json.dumps(argv)],
        cwd=cwd,
        env=dict(os.environ),
        capture_output=True,
        text=True,
        check=True,
    )
    report = json.loads(done.stdout)
    return report["code"], report["modules"]


@pytest.mark.parametrize(
    "argv",
    [
        ["recall", "x", "--json"],
        ["recall", "auth", "flow", "--limit", "5"],
        ["remember", "a note on start-up", "--json"],
        ["remember", "--name", "n", "--type", "decision", "--obs", "one", "--tags", "a:b"],
        ["briefing"],
        ["briefing", "--json"],
    ],
)
def test_the_hot_commands_run_without_importing_cyclopts(memesh_env: Path, tmp_path: Path, argv: list[str]) -> None:
    code, modules = _modules(argv, tmp_path)
    assert code == 0
    tops = {name.split(".")[0] for name in modules}
    assert [name for name in ("cyclopts", "attr", "attrs", "rich", *HEAVY) if name in tops] == []
    assert "memesh.transports.cli.tree" not in modules


def test_a_command_through_cyclopts_imports_only_its_own_declarations(memesh_env: Path, tmp_path: Path) -> None:
    code, modules = _modules(["export", "--limit", "1", "-o", str(tmp_path / "out.json")], tmp_path)
    assert code == 0
    assert "cyclopts" in modules
    declared = sorted(name for name in modules if name.startswith("memesh.transports.cli.commands."))
    assert declared == ["memesh.transports.cli.commands.data"]
    assert [name for name in HEAVY if name in {module.split(".")[0] for module in modules}] == []


def test_help_of_the_whole_tree_still_lists_every_command_with_its_summary(memesh_env: Path, tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "memesh", "--help"],
        cwd=tmp_path,
        env={**os.environ, "COLUMNS": "200"},
        capture_output=True,
        text=True,
        check=True,
    )
    assert "│ recall          Search memories by keyword; without a query, list the recent ones." in done.stdout
    assert "│ message         " in done.stdout
    assert "consolidate" not in done.stdout


@pytest.mark.parametrize("command", sorted(WITHOUT_CYCLOPTS))
def test_each_command_the_front_runs_is_declared_in_a_module_that_imports_no_cyclopts(command: str) -> None:
    module = DECLARED[command].partition(":")[0]
    probe = f"import sys, {module}; print('cyclopts' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True, cwd="/")
    assert done.stdout.strip() == "False"


# What only backup, restore, settings and upkeep need: declared at start-up, imported when their command runs.
DEFERRED = (
    "memesh.transports.cli.actions.backup",
    "memesh.transports.cli.actions.config",
    "memesh.adapters.config_file",
    "memesh.ops.import_bundle",
    "memesh.ops.note_import",
    "memesh.ops.pin",
    "memesh.core.importing",
    "memesh.core.note_files",
    # Delegation, Hermes capture and the memory tool: none of them is on recall's path.
    "memesh.core.delegation",
    "memesh.ops.delegation",
    "memesh.core.hermes_capture",
    "memesh.ops.hermes",
    "memesh.app.memory_tool",
    "memesh.ops.memory_tool",
    "anthropic",
)

FULL_NAMES = """
import contextlib, io, json, sys
from memesh.transports.cli.app import main
with contextlib.redirect_stdout(io.StringIO()):
    code = main(["recall", "x", "--json"])
print(json.dumps({"code": code, "modules": sorted(sys.modules)}))
"""


def test_recall_json_loads_none_of_the_other_commands_implementations(memesh_env: Path, tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-c", FULL_NAMES],
        cwd=tmp_path,
        env=dict(os.environ),
        capture_output=True,
        text=True,
        check=True,
    )
    report = json.loads(done.stdout)
    assert report["code"] == 0
    assert "memesh.transports.cli.commands.memory" in report["modules"]  # the probe sees full names
    assert [name for name in DEFERRED if name in report["modules"]] == []


def test_recall_in_the_default_mode_reads_no_config_reader_when_config_json_sets_other_keys(
    memesh_env: Path, tmp_path: Path
) -> None:
    config = memesh_env.parent / "config.json"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(json.dumps({"briefing": "full", "sessionLimit": 20}))
    env = {name: value for name, value in os.environ.items() if name != "MEMESH_RECALL_MODE"}
    done = subprocess.run(
        [sys.executable, "-c", FULL_NAMES], cwd=tmp_path, env=env, capture_output=True, text=True, check=True
    )
    report = json.loads(done.stdout)
    assert report["code"] == 0
    # The recall modes' own modules and the config reader stay off the default path.
    unwanted = ("memesh.adapters.config_file", "memesh.core.recall_modes", "memesh.ops.recall_search")
    assert [name for name in unwanted if name in report["modules"]] == []
