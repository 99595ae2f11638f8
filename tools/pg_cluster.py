"""A throwaway PostgreSQL cluster for the suite and the benchmarks: a temporary folder, a unix socket, no TCP.

Debian's `postgresql` package (`make postgres` installs it) gives the server programs; initdb and the server refuse
to run as root, so as root they run as the `postgres` system user (runuser). Trust authentication on a socket in a
folder only that user and root can enter; fsync off (nothing here outlives the run). Databases are copied from a
migrated template, which is much faster than migrating each one.

    python tools/pg_cluster.py        # start one, print its admin URL, stop it on Enter or Ctrl-C
"""

from __future__ import annotations

import atexit
import contextlib
import itertools
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

ROLE = "memesh"
TEMPLATE = "memesh_template"


def binaries() -> Path | None:
    """The folder of PostgreSQL's server programs: Debian's newest /usr/lib/postgresql/<n>/bin, else PATH's."""
    found = sorted(Path("/usr/lib/postgresql").glob("*/bin/initdb"), key=lambda p: int(p.parent.parent.name))
    if found:
        return found[-1].parent
    initdb = shutil.which("initdb")
    return Path(initdb).parent if initdb else None


class Cluster:
    """A PostgreSQL cluster in a temporary folder, reached by its unix socket only; stopped and removed at exit."""

    def __init__(self, bindir: Path, *, template: bool = True) -> None:
        self.bindir = bindir
        self.folder = Path(tempfile.mkdtemp(prefix="memesh-pg-"))
        self.data = self.folder / "data"
        self.as_postgres = os.geteuid() == 0  # initdb and the server refuse to run as root
        if self.as_postgres:
            shutil.chown(self.folder, "postgres", "postgres")
        self._run(
            "initdb", "-D", str(self.data), "-U", ROLE, "--auth=trust", "-E", "UTF8", "--locale=C.UTF-8", "--no-sync"
        )  # fmt: skip
        options = (
            f"-c listen_addresses='' -c unix_socket_directories={self.folder} -c fsync=off "
            "-c synchronous_commit=off -c full_page_writes=off -c max_connections=300 -c shared_buffers=128MB"
        )
        self._run("pg_ctl", "-D", str(self.data), "-l", str(self.folder / "log"), "-w", "-o", options, "start")
        atexit.register(self.stop)
        self._counter = itertools.count()
        self._prefix = f"t{os.getpid()}_"
        if template:
            self._make_template()

    def _run(self, program: str, *args: str) -> None:
        command = [str(self.bindir / program), *args]
        if self.as_postgres:
            command = ["runuser", "-u", "postgres", "--", *command]
        subprocess.run(command, check=True, capture_output=True, cwd=self.folder)

    def url(self, database: str = "postgres") -> str:
        return f"postgresql://{ROLE}@/{database}?host={self.folder}"

    def admin(self) -> Any:
        import psycopg

        return psycopg.connect(self.url(), autocommit=True)

    def _make_template(self) -> None:
        from memesh.store.postgres import open_postgres

        with self.admin() as admin:
            # A collation that sorts by language, not code point: the schema's own COLLATE "C" must make up for it.
            try:
                admin.execute(
                    f"CREATE DATABASE {TEMPLATE} TEMPLATE template0 LOCALE_PROVIDER icu ICU_LOCALE 'en-US' "
                    "LOCALE 'C.UTF-8'"
                )
            except Exception:  # a server built without ICU
                admin.execute(f"CREATE DATABASE {TEMPLATE}")
        open_postgres(self.url(TEMPLATE)).close()

    def new_database(self, *, migrated: bool = True) -> str:
        """A fresh database of its own (migrated, from the template, unless asked for an empty one); its URL."""
        name = f"{self._prefix}{next(self._counter)}"
        with self.admin() as admin:
            if migrated:
                admin.execute(f"CREATE DATABASE {name} TEMPLATE {TEMPLATE} STRATEGY FILE_COPY")
            else:
                admin.execute(f"CREATE DATABASE {name}")
        return self.url(name)

    def drop(self, url: str) -> None:
        name = urlsplit(url).path.lstrip("/")
        with self.admin() as admin:
            admin.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")

    def stop(self) -> None:
        if self.data.exists():
            with contextlib.suppress(subprocess.CalledProcessError):
                self._run("pg_ctl", "-D", str(self.data), "-m", "immediate", "-w", "stop")
        shutil.rmtree(self.folder, ignore_errors=True)


def main() -> int:
    bindir = binaries()
    if bindir is None:
        print("PostgreSQL is not installed: apt-get install -y postgresql (or `make postgres`)", file=sys.stderr)
        return 1
    cluster = Cluster(bindir, template=False)
    print(cluster.url(), flush=True)
    with contextlib.suppress(KeyboardInterrupt, EOFError):
        input()
    cluster.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
