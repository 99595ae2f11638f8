"""Fixtures shared by every test: a fresh database file and a call context."""

from __future__ import annotations

import os
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from returns.result import Result

from memesh.app.resources import local_router
from memesh.context import CallContext
from memesh.errors import MemeshError
from memesh.store.sqlite import SqliteStore
from tests.backends import Backend, backend, pg_url, pytest_configure, pytest_generate_tests
from tests.calls import call

__all__ = [
    "backend",
    "pg_url",
    "pytest_configure",
    "pytest_generate_tests",
]  # the backend fixture and its parametrization

# No test reaches the package index: servers started by tests (and their children) skip the update check.
os.environ["MEMESH_UPDATE_CHECK"] = "0"

NOW = datetime(2026, 11, 30, 12, 0, 0, tzinfo=UTC)
TEST_PROJECT = "test-project~" + "0" * 32


@pytest.fixture
def fresh_db(tmp_path: Path, backend: Backend) -> Iterator[SqliteStore]:
    """A migrated database of its own (a file, or a PostgreSQL database on that backend), closed after the test."""
    store = backend.open(tmp_path / "memesh" / "knowledge-graph.db")
    yield store  # type: ignore[misc]  # typed as SqliteStore for the tests' annotations; either engine's store
    store.close()


@pytest.fixture
def ctx() -> CallContext:
    return CallContext(
        source_host="test-host", agent_view=False, now=NOW, project=lambda: TEST_PROJECT, router=local_router
    )


@pytest.fixture
def agent_ctx() -> CallContext:
    return CallContext(
        source_host="test-host", agent_view=True, now=NOW, project=lambda: TEST_PROJECT, router=local_router
    )


@pytest.fixture
def memesh_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, backend: Backend) -> Path:
    """MEMESH_DIR and MEMESH_DB_PATH pointed into the test's own folder (and MEMESH_DATABASE_URL at the test's own
    PostgreSQL database on that backend); returns the database path."""
    home = tmp_path / "home"
    monkeypatch.setenv("MEMESH_DIR", str(home / ".memesh"))
    db = home / ".memesh" / "knowledge-graph.db"
    monkeypatch.setenv("MEMESH_DB_PATH", str(db))
    monkeypatch.setenv("HOME", str(home))
    backend.use(monkeypatch, db)
    return db


class Caller:
    """Calls tools through the same dispatch path the transports use."""

    def __init__(self, store: SqliteStore, ctx: CallContext) -> None:
        self.store = store
        self.ctx = ctx

    def __call__(self, tool: str, arguments: Any) -> Result[Any, MemeshError]:
        return call(tool, self.store, arguments, self.ctx)

    def ok(self, tool: str, arguments: Any) -> Any:
        result = self(tool, arguments)
        return result.unwrap()

    def fails(self, tool: str, arguments: Any) -> MemeshError:
        result = self(tool, arguments)
        return result.failure()


@pytest.fixture
def tools(fresh_db: SqliteStore, ctx: CallContext) -> Caller:
    return Caller(fresh_db, ctx)


@pytest.fixture
def agent_tools(fresh_db: SqliteStore, agent_ctx: CallContext) -> Caller:
    return Caller(fresh_db, agent_ctx)
