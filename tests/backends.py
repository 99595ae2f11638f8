"""The suite's two storage engines: every test that touches the store through the `backend` fixture runs on both.

SQLite is the test's own file, as always. PostgreSQL is a throwaway cluster each pytest process starts for itself
(initdb as the `postgres` system user when run as root, since initdb refuses root; a unix socket in a temporary
folder, no TCP; fsync off), and every test gets a database of its own, copied from a migrated template. A test
that reads the SQLite file itself (its pages, modes, WAL, FTS5 tables through `store.conn`) is marked
`sqlite_only` and runs on SQLite alone.

MEMESH_TEST_BACKENDS=sqlite runs only SQLite (a quick local run); MEMESH_TEST_REQUIRE_POSTGRES=1 (set by `make test`)
makes a missing PostgreSQL an error instead of a skip.
"""

from __future__ import annotations

import atexit
import contextlib
import functools
import itertools
import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from memesh.store.open import Store, open_store

BACKENDS = ("sqlite", "postgres")
_ADMIN_ROLE = "memesh"
_TEMPLATE = "memesh_template"


def _binaries() -> Path | None:
    """The folder of PostgreSQL's server programs: Debian's newest /usr/lib/postgresql/<n>/bin, else PATH's."""
    found = sorted(Path("/usr/lib/postgresql").glob("*/bin/initdb"), key=lambda p: int(p.parent.parent.name))
    if found:
        return found[-1].parent
    initdb = shutil.which("initdb")
    return Path(initdb).parent if initdb else None


class Cluster:
    """A PostgreSQL cluster in a temporary folder, reached by its unix socket only; stopped and removed at exit."""

    def __init__(self, bindir: Path) -> None:
        self.bindir = bindir
        self.folder = Path(tempfile.mkdtemp(prefix="memesh-pg-"))
        self.data = self.folder / "data"
        self.as_postgres = os.geteuid() == 0  # initdb and the server refuse to run as root
        if self.as_postgres:
            shutil.chown(self.folder, "postgres", "postgres")
        self._run(
            "initdb", "-D", str(self.data), "-U", _ADMIN_ROLE, "--auth=trust", "-E", "UTF8",
            "--locale=C.UTF-8", "--no-sync",
        )  # fmt: skip
        options = (
            f"-c listen_addresses='' -c unix_socket_directories={self.folder} -c fsync=off "
            "-c synchronous_commit=off -c full_page_writes=off -c max_connections=300 -c shared_buffers=64MB"
        )
        self._run("pg_ctl", "-D", str(self.data), "-l", str(self.folder / "log"), "-w", "-o", options, "start")
        atexit.register(self.stop)
        self._counter = itertools.count()
        self._prefix = f"t{os.getpid()}_"
        self._make_template()

    def _run(self, program: str, *args: str) -> None:
        command = [str(self.bindir / program), *args]
        if self.as_postgres:
            command = ["runuser", "-u", "postgres", "--", *command]
        subprocess.run(command, check=True, capture_output=True, cwd=self.folder)

    def url(self, database: str) -> str:
        return f"postgresql://{_ADMIN_ROLE}@/{database}?host={self.folder}"

    def _admin(self) -> Any:
        import psycopg

        return psycopg.connect(self.url("postgres"), autocommit=True)

    def _make_template(self) -> None:
        with self._admin() as admin:
            # A collation that sorts by language, not code point: the schema's own COLLATE "C" must make up for it.
            try:
                admin.execute(
                    f"CREATE DATABASE {_TEMPLATE} TEMPLATE template0 LOCALE_PROVIDER icu ICU_LOCALE 'en-US' "
                    "LOCALE 'C.UTF-8'"
                )
            except Exception:
                admin.execute(f"CREATE DATABASE {_TEMPLATE}")
        open_store(self.url(_TEMPLATE)).close()

    def new_database(self) -> str:
        """A fresh, migrated database of its own; returns its URL."""
        name = f"{self._prefix}{next(self._counter)}"
        with self._admin() as admin:
            admin.execute(f"CREATE DATABASE {name} TEMPLATE {_TEMPLATE} STRATEGY FILE_COPY")
        return self.url(name)

    def drop(self, url: str) -> None:
        from urllib.parse import urlsplit

        name = urlsplit(url).path.lstrip("/")
        with self._admin() as admin:
            admin.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")

    def stop(self) -> None:
        if self.data.exists():
            with contextlib.suppress(subprocess.CalledProcessError):
                self._run("pg_ctl", "-D", str(self.data), "-m", "immediate", "-w", "stop")
        shutil.rmtree(self.folder, ignore_errors=True)


@functools.cache
def cluster() -> Cluster:
    """This pytest process's cluster, started on first use (about 2 s)."""
    bindir = _binaries()
    if bindir is None:
        reason = "PostgreSQL is not installed (apt-get install -y postgresql, or run `make test`)"
        if os.environ.get("MEMESH_TEST_REQUIRE_POSTGRES"):
            pytest.fail(reason)
        pytest.skip(reason)
    return Cluster(bindir)


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

    def use(self, monkeypatch: pytest.MonkeyPatch, path: Path) -> None:
        """Make "the configured database" this one for the test and the processes it starts (MEMESH_DATABASE_URL
        beside MEMESH_DB_PATH, whose folder keeps the local files)."""
        if self.postgres:
            monkeypatch.setenv("MEMESH_DATABASE_URL", str(self.target(path)))
        else:
            monkeypatch.delenv("MEMESH_DATABASE_URL", raising=False)

    def close(self) -> None:
        for url in self._urls.values():
            cluster().drop(url)


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "sqlite_only: reads the SQLite file itself (pages, modes, WAL, FTS5 tables): not run on PostgreSQL"
    )


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "backend" not in metafunc.fixturenames:
        return
    wanted = os.environ.get("MEMESH_TEST_BACKENDS", ",".join(BACKENDS)).split(",")
    if metafunc.definition.get_closest_marker("sqlite_only") is not None:
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
