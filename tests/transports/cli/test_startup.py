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
from memesh.transports.cli import main
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
