"""What `memesh recall x --json` loads: the heavy server stacks stay off the path of a command that needs none."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

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
    assert "memesh.transports.cli.commands.data" in report["modules"]  # the probe sees full names
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
