"""The suite's two storage engines: every test that touches the store through the `backend` fixture runs on both.

SQLite is the test's own file, as always. PostgreSQL is a throwaway cluster each pytest process starts for itself
(initdb as the `postgres` system user when run as root, since initdb refuses root; a unix socket in a temporary
folder, no TCP; fsync off), and every test gets a database of its own, copied from a migrated template. A test
that reads the SQLite file itself (its pages, modes, WAL, FTS5 tables through `store.conn`) is marked
`sqlite_only` and runs on SQLite alone. One whose fixtures take the backend but whose check reaches no store (a
process's --version, a protocol's framing) is marked `one_engine("why")`: on SQLite alone too, for the suite's time,
not because PostgreSQL would differ.

MEMESH_TEST_BACKENDS=sqlite runs only SQLite (a quick local run); MEMESH_TEST_REQUIRE_POSTGRES=1 (set by `make test`)
makes a missing PostgreSQL an error instead of a skip.
"""

from __future__ import annotations

import functools
import importlib.util
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from memesh.store.open import Store, open_store

BACKENDS = ("sqlite", "postgres")


def _pg_cluster() -> ModuleType:
    """tools/pg_cluster.py, the throwaway cluster the benchmarks start too (tools/ is not a package)."""
    path = Path(__file__).resolve().parent.parent / "tools" / "pg_cluster.py"
    spec = importlib.util.spec_from_file_location("memesh_pg_cluster", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def server_programs() -> Path:
    """The folder of PostgreSQL's server programs; a missing server fails the test under MEMESH_TEST_REQUIRE_POSTGRES
    (`make test`) and skips it otherwise. Every cluster the suite starts finds them here."""
    bindir: Path | None = _pg_cluster().binaries()
    if bindir is None:
        reason = "PostgreSQL is not installed (apt-get install -y postgresql, or run `make test`)"
        if os.environ.get("MEMESH_TEST_REQUIRE_POSTGRES"):
            pytest.fail(reason)
        pytest.skip(reason)
    return bindir


@functools.cache
def cluster() -> Any:
    """This pytest process's cluster, started on first use (about 2 s)."""
    bindir = server_programs()  # first: a missing server fails or skips before the cluster's module is asked for more
    return _pg_cluster().Cluster(bindir)


@dataclass
class Backend:
    """The engine a test runs on, and the databases it has opened there: one per SQLite path the test names."""

    name: str
    _urls: dict[Path, str] = field(default_factory=dict)

    @property
    def postgres(self) -> bool:
        return self.name == "postgres"

    def target(self, path: Path) -> Path | str:
        """What to open for "the database at `path`": the file on SQLite, this test's database for that path on
        PostgreSQL (a test naming two files gets two databases)."""
        if not self.postgres:
            return path
        if path not in self._urls:
            self._urls[path] = cluster().new_database()
        return self._urls[path]

    def open(self, path: Path) -> Store:
        return open_store(self.target(path))

    def environ(self, path: Path) -> dict[str, str]:
        """What a child process's environment adds to make "the configured database" this one: MEMESH_DATABASE_URL
        on PostgreSQL (beside the MEMESH_DB_PATH the test gives it, whose folder keeps the local files), nothing on
        SQLite. A test building a child's environment by hand drops any MEMESH_DATABASE_URL it inherited first."""
        return {"MEMESH_DATABASE_URL": str(self.target(path))} if self.postgres else {}

    def use(self, monkeypatch: pytest.MonkeyPatch, path: Path) -> None:
        """Make "the configured database" this one for the test and the processes it starts (MEMESH_DATABASE_URL
        beside MEMESH_DB_PATH, whose folder keeps the local files)."""
        monkeypatch.delenv("MEMESH_DATABASE_URL", raising=False)
        for name, value in self.environ(path).items():
            monkeypatch.setenv(name, value)

    def close(self) -> None:
        for url in self._urls.values():
            cluster().drop(url)


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "sqlite_only: reads the SQLite file itself (pages, modes, WAL, FTS5 tables): not run on PostgreSQL"
    )
    config.addinivalue_line(
        "markers",
        "one_engine(reason): its fixtures take the backend, but what it checks reaches no store, or only a path no "
        "engine changes (a process's flags, a protocol's framing): run on SQLite alone to spare the suite's time",
    )


def engines() -> list[str]:
    """The engines this run tests on (MEMESH_TEST_BACKENDS, else both): for a fixture of a wider scope than a test's
    that makes its own `Backend` (the `backend` fixture itself is a test's)."""
    wanted = os.environ.get("MEMESH_TEST_BACKENDS", ",".join(BACKENDS)).split(",")
    return [name for name in BACKENDS if name in wanted]


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "backend" not in metafunc.fixturenames:
        return
    wanted = engines()
    if any(metafunc.definition.get_closest_marker(name) is not None for name in ("sqlite_only", "one_engine")):
        wanted = ["sqlite"]
    metafunc.parametrize("backend", [name for name in BACKENDS if name in wanted], indirect=True)


@pytest.fixture
def backend(request: pytest.FixtureRequest) -> Iterator[Backend]:
    chosen = Backend(getattr(request, "param", "sqlite"))
    yield chosen
    chosen.close()


@pytest.fixture
def pg_url() -> Iterator[str]:
    """A fresh, migrated PostgreSQL database of the test's own (for tests of the PostgreSQL store itself)."""
    url = cluster().new_database()
    yield url
    cluster().drop(url)
