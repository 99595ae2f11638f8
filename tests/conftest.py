"""Fixtures shared by every test: a fresh database file and a call context; and the session's own home
(tests/isolation.py), set before any test runs and checked when the session ends."""

from __future__ import annotations

import contextlib
import os
import signal
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
from tests import backends, isolation
from tests.backends import Backend, backend, pg_url, pytest_generate_tests
from tests.calls import call
from tests.pooler import pgbouncer

# the backend fixture and its parametrization; a PgBouncer in front of the suite's cluster
__all__ = ["backend", "pg_url", "pgbouncer", "pytest_generate_tests"]

# The real home's .memesh as the session found it: kept by the session's first process, which checks it at the end.
REAL_MEMESH_BEFORE = pytest.StashKey[dict[Path, isolation.Listing]]()


def pytest_configure(config: pytest.Config) -> None:
    backends.pytest_configure(config)
    # What `make check` leaves out (-m "not node and not browser"): the programs `make test` installs with npm or
    # apt-get (as root), which a contributor's machine may not have.
    config.addinivalue_line("markers", "node: runs a Node program make test installs (Claude Code, Gemini CLI, tsc, …)")
    config.addinivalue_line("markers", "browser: drives Chromium, which make test installs with apt-get")
    if isolation.SESSION_ROOT not in os.environ:
        config.stash[REAL_MEMESH_BEFORE] = isolation.listings()
    isolation.isolate(os.environ.get("PYTEST_XDIST_WORKER", "main"))


def pytest_sessionfinish(session: pytest.Session) -> None:
    before = session.config.stash.get(REAL_MEMESH_BEFORE, None)
    if before is None:  # an xdist worker: the controller checks once all of them are done
        return
    # What fails the run is a write the suite's own processes recorded (tests/isolation.py); a difference in the
    # listing alone may be the user's own MeMesh working beside the run, and is only reported.
    writes = isolation.suite_writes()
    # Resident servers a test left running (the suite runs with MEMESH_DAEMON=0; a test that turns it on stops
    # what it starts): stopped here, and reported, so a run never leaves servers behind.
    roots = [os.environ.get(isolation.SESSION_ROOT, "") or "/nonexistent"]
    with contextlib.suppress(AttributeError, OSError):
        factory = getattr(session.config, "_tmp_path_factory", None)  # pytest's tmp_path root, when it made one
        if factory is not None:
            roots.append(str(factory.getbasetemp()))
    strays = isolation.stray_residents(roots)
    for pid in strays:
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGTERM)
    isolation.remove_session_root()
    after = isolation.listings()
    notes: list[str] = []
    for folder, listing in before.items():
        changed = isolation.changes(listing, after[folder])
        if changed:
            notes += [f"note: {folder} changed during the run, by no Python process of the suite:", *changed[:20]]
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    if reporter is not None and (notes or writes or strays):
        reporter.ensure_newline()
        if strays:
            reporter.write_line(f"resident servers left running by tests, stopped: {strays}", yellow=True)
        if writes:
            wrote = ["the test session wrote to the real .memesh:", *writes[:20]]
            reporter.write_line("\n".join(wrote), red=True, bold=True)
        elif notes:
            reporter.write_line("\n".join(notes), yellow=True)
    if writes:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


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
