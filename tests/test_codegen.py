"""generated/ is exactly what the schemas produce, and every schema stays inside what the validator enforces."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_generated_models_match_the_schema_files() -> None:
    result = subprocess.run(
        [sys.executable, str(ROOT / "tools" / "codegen.py"), "--check"],
        check=False,
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_hook_models_declare_each_class_once() -> None:
    # The hook inputs share session_id, cwd and host through schemas/hooks/common.json, generated once.
    declared = [
        line.split("(")[0].removeprefix("class ").strip()
        for path in sorted((ROOT / "generated" / "hooks").glob("*.py"))
        for line in path.read_text().splitlines()
        if line.startswith("class ")
    ]
    assert "Host" in declared
    assert len(declared) == len(set(declared)), sorted(declared)
