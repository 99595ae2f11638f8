"""The registry imports each operation only when it is first called, and every one of them resolves."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from memesh.app.registry import TOOLS, LazyOperation

PROBE = """
import json, sys
import memesh.app.dispatch
print(json.dumps(sorted(name for name in sys.modules if name.startswith("memesh.ops."))))
"""


def test_every_registered_operation_resolves_to_a_function_of_its_name() -> None:
    for tool in TOOLS:
        assert isinstance(tool.operation, LazyOperation)
        function = tool.operation.resolve()
        assert callable(function)
        assert function.__name__ == tool.operation.function


def test_importing_dispatch_imports_no_operation(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-c", PROBE], cwd=tmp_path, env=dict(os.environ), capture_output=True, text=True, check=True
    )
    assert json.loads(done.stdout) == []
