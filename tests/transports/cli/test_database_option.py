"""`--database` travels in the command's settings (memesh.settings), never through the environment."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.transports.cli.conftest import Cli


@pytest.mark.sqlite_only  # the file --database names is created and read
def test_a_database_file_on_the_command_line_wins_over_config_jsons_database(
    cli: Cli, memesh_env: Path, tmp_path: Path
) -> None:
    folder = Path(os.environ["MEMESH_DIR"])
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "config.json").write_text(json.dumps({"database": "postgresql://nobody@127.0.0.1:9/none"}))
    other = tmp_path / "other.db"
    before = dict(os.environ)
    exported = cli.ok("export", "--database", str(other), "--json").json()
    assert exported["entities"] == [] and other.exists()
    assert dict(os.environ) == before
