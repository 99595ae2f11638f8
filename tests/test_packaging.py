"""A plain (non-editable) wheel installs everything as memesh.*, with the schema files inside it."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

from memesh.schema import files as schemas

ROOT = Path(__file__).resolve().parent.parent


def test_the_wheel_holds_one_memesh_namespace_and_every_schema_file(tmp_path: Path) -> None:
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "-q",
            "-w",
            str(tmp_path),
            str(ROOT),
        ],
        check=True,
        capture_output=True,
        cwd=tmp_path,
    )
    (wheel,) = tmp_path.glob("memesh-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    tops = {name.split("/")[0] for name in names if not name.split("/")[0].endswith((".dist-info", ".data"))}
    assert tops == {"memesh"}
    # memesh-hook is the package's own launcher (a script the installer copies to bin/), not a console-script entry.
    assert {name for name in names if ".data/" in name} == {
        f"{wheel.name.split('-')[0]}-{wheel.name.split('-')[1]}.data/scripts/memesh-hook"
    }
    for schema in (ROOT / "schemas").rglob("*.json"):
        assert f"memesh/schemas/{schema.relative_to(ROOT / 'schemas').as_posix()}" in names
    assert "memesh/generated/tools/remember_input.py" in names
    assert "memesh/transports/mcp/server.py" in names
    assert "memesh/py.typed" in names
    assert schemas.load("tools/remember.input")["title"] == "RememberInput"
