"""The registry imports each operation only when it is first called, and every one of them resolves."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from memesh.app.registry import TOOLS

PROBE = """
import json, sys
import memesh.app.dispatch
print(json.dumps(sorted(name for name in sys.modules if name.startswith("memesh.ops."))))
"""


def test_every_registered_operation_loads_as_a_function_of_the_ops_package() -> None:
    for tool in TOOLS:
        function = tool.load()
        assert callable(function)
        assert function.__module__.startswith("memesh.ops.")


def test_importing_dispatch_imports_no_operation(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-c", PROBE], cwd=tmp_path, env=dict(os.environ), capture_output=True, text=True, check=True
    )
    assert json.loads(done.stdout) == []
