"""memesh-mcp serves hook events only for the database the environment names: a server handed another file (the
answer recorder `tools/codegen.py` runs, a test) must not bind a hook socket for the environment's database."""

from __future__ import annotations

from pathlib import Path

import pytest

from memesh.transports.mcp import server
from memesh.transports.mcp.backend import Backend


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("MEMESH_DIR", str(tmp_path / "memesh"))
    monkeypatch.delenv("MEMESH_DB_PATH", raising=False)
    monkeypatch.delenv("MEMESH_HOOK_SERVER", raising=False)
    return tmp_path / "memesh"


def test_a_server_of_another_database_binds_no_hook_socket_in_the_environments_folder(
    folder: Path, tmp_path: Path
) -> None:
    assert server._serve_hooks(Backend(tmp_path / "record.db")) is None
    assert not folder.exists() or not any(folder.glob("hook-*"))


def test_a_server_of_the_environments_database_serves_its_hooks(folder: Path) -> None:
    hooks = server._serve_hooks(Backend(folder / "knowledge-graph.db"))
    assert hooks is not None
    try:
        assert hooks.db == str((folder / "knowledge-graph.db").resolve())
    finally:
        hooks.close()
