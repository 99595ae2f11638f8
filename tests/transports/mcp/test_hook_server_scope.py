"""memesh-mcp serves hook events only for the database the environment names: a server handed another file (the
answer recorder `tools/codegen.py` runs, a test) must not bind a hook socket for the environment's database."""

from __future__ import annotations

from pathlib import Path

import pytest

from memesh.transports.mcp.backend import Backend
from memesh.transports.mcp.session_hooks import serve_hooks
from tests.backends import Backend as Engine


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, backend: Engine) -> Path:
    monkeypatch.setenv("MEMESH_DIR", str(tmp_path / "memesh"))
    monkeypatch.delenv("MEMESH_DB_PATH", raising=False)
    monkeypatch.delenv("MEMESH_HOOK_SERVER", raising=False)
    backend.use(monkeypatch, tmp_path / "memesh" / "knowledge-graph.db")
    return tmp_path / "memesh"


def test_a_server_of_another_database_binds_no_hook_socket_in_the_environments_folder(
    folder: Path, tmp_path: Path
) -> None:
    assert serve_hooks(Backend(tmp_path / "record.db")) is None
    assert not folder.exists() or not any(folder.glob("hook-*"))


def test_a_server_of_the_environments_database_serves_its_hooks(folder: Path, backend: Engine) -> None:
    database = backend.target(folder / "knowledge-graph.db")  # the file, or the URL MEMESH_DATABASE_URL names
    hooks = serve_hooks(Backend(database))
    assert hooks is not None
    try:
        assert hooks.db == (database if isinstance(database, str) else str(database.resolve()))
    finally:
        hooks.close()


def test_a_server_handed_the_file_while_the_environment_names_a_url_serves_no_hooks(
    folder: Path, backend: Engine
) -> None:
    # On PostgreSQL the environment's database is the URL: a server on the file under the same MEMESH_DB_PATH is
    # another database, and must not take that URL's hooks (nor, on SQLite, is the URL of any file's).
    handed: Path | str = folder / "knowledge-graph.db" if backend.postgres else "postgresql:///elsewhere"
    assert serve_hooks(Backend(handed)) is None
    assert not folder.exists() or not any(folder.glob("hook-*"))
