"""A throwaway PostgreSQL cluster for the suite and the benchmarks: a temporary folder, a unix socket, no TCP
(unless a fault test asks for 127.0.0.1: `tcp=True`).

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
from collections.abc import Sequence
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
    """A PostgreSQL cluster in a temporary folder, reached by its unix socket (and 127.0.0.1 with `tcp`); stopped and
    removed at exit."""

    def __init__(self, bindir: Path, *, template: bool = True, settings: Sequence[str] = (), tcp: bool = False) -> None:
        self.bindir = bindir
        # tcp: listen on 127.0.0.1 as well, on a free port, and hand out URLs over TCP (a fault test's own cluster:
        # a proxy can stand between, keepalives and timeouts apply as on a network)
        self.port = _free_port() if tcp else None
        self.folder = Path(tempfile.mkdtemp(prefix="memesh-pg-"))
        self.data = self.folder / "data"
        self.as_postgres = os.geteuid() == 0  # initdb and the server refuse to run as root
        if self.as_postgres:
            shutil.chown(self.folder, "postgres", "postgres")
        self._run(
            "initdb", "-D", str(self.data), "-U", ROLE, "--auth=trust", "-E", "UTF8", "--locale=C.UTF-8", "--no-sync"
        )  # fmt: skip
        listen = f"-c listen_addresses=127.0.0.1 -c port={self.port}" if self.port else "-c listen_addresses=''"
        options = (
            f"{listen} -c unix_socket_directories={self.folder} -c fsync=off "
            "-c synchronous_commit=off -c full_page_writes=off -c max_connections=300 -c shared_buffers=128MB"
        ) + "".join(f" -c {setting}" for setting in settings)  # a benchmark's NAME=VALUE, after (so over) these
        self._run("pg_ctl", "-D", str(self.data), "-l", str(self.folder / "log"), "-w", "-o", options, "start")
        atexit.register(self.stop)
        self._counter = itertools.count()
        self._free: list[str] = []  # migrated databases given back emptied, for the next test
        self._shape: Any = None  # the template's schema, as _SHAPE reads it
        self._reset: str | None = None  # the SQL that empties a database copied from the template back to it
        self._prefix = f"t{os.getpid()}_"
        if template:
            self._make_template()

    def _run(self, program: str, *args: str) -> None:
        command = [str(self.bindir / program), *args]
        if self.as_postgres:
            command = ["runuser", "-u", "postgres", "--", *command]
        subprocess.run(command, check=True, capture_output=True, cwd=self.folder)

    def url(self, database: str = "postgres") -> str:
        if self.port:
            return f"postgresql://{ROLE}@127.0.0.1:{self.port}/{database}"
        return f"postgresql://{ROLE}@/{database}?host={self.folder}"

    def restart(self, mode: str = "fast") -> None:
        """pg_ctl restart -m `mode` (smart, fast or immediate), back when it returns (same options, same port)."""
        self._run("pg_ctl", "-D", str(self.data), "-l", str(self.folder / "log"), "-w", "-m", mode, "restart")

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
        self._shape, self._reset = _snapshot(self.url(TEMPLATE))

    def new_database(self, *, migrated: bool = True) -> str:
        """A fresh database of its own (migrated, from the template, unless asked for an empty one); its URL.

        A migrated one is a database an earlier test gave back emptied (`drop`) when there is one: CREATE DATABASE
        costs about a second on a busy 2-core machine, emptying one some 30 ms."""
        if migrated and self._free:
            return self.url(self._free.pop())
        name = f"{self._prefix}{next(self._counter)}"
        with self.admin() as admin:
            if migrated:
                admin.execute(f"CREATE DATABASE {name} TEMPLATE {TEMPLATE} STRATEGY FILE_COPY")
            else:
                admin.execute(f"CREATE DATABASE {name}")
        return self.url(name)

    def drop(self, url: str) -> None:
        """Done with this database: emptied back to the template's rows and kept for the next test when its schema
        is still the template's, else dropped."""
        if self._reset is not None and self._emptied(url):
            self._free.append(urlsplit(url).path.lstrip("/"))
            return
        with self.admin() as admin:
            admin.execute(f"DROP DATABASE IF EXISTS {urlsplit(url).path.lstrip('/')} WITH (FORCE)")

    def _emptied(self, url: str) -> bool:
        """Every table emptied, every sequence and the template's own rows put back, in one round trip, after
        whatever the test started is disconnected; False (nothing done) when a test changed the schema."""
        import psycopg

        reset = self._reset
        if reset is None:
            return False
        try:
            with psycopg.connect(url, autocommit=True) as conn:
                conn.execute(
                    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                    "WHERE datname = current_database() AND pid <> pg_backend_pid()"
                )
                if conn.execute(_SHAPE).fetchone() != self._shape:
                    return False
                conn.execute(reset)
            return True
        except psycopg.Error:
            return False

    def stop(self) -> None:
        if self.data.exists():
            with contextlib.suppress(subprocess.CalledProcessError):
                self._run("pg_ctl", "-D", str(self.data), "-m", "immediate", "-w", "stop")
        shutil.rmtree(self.folder, ignore_errors=True)


def _free_port() -> int:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


# A database's schema in one value: its schemas, relations, columns, triggers and functions (their source).
_SHAPE = """
SELECT md5(concat_ws('|',
    (SELECT string_agg(nspname, ',' ORDER BY nspname) FROM pg_namespace),
    (SELECT string_agg(n.nspname || '.' || c.relname || ':' || c.relkind::text, ',' ORDER BY n.nspname, c.relname)
        FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname NOT IN ('pg_catalog', 'information_schema', 'pg_toast')),
    (SELECT string_agg(c.relname || '.' || a.attname || ':' || a.atttypid::text || a.attnotnull::text, ','
                       ORDER BY c.relname, a.attnum)
        FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname = 'public' AND a.attnum > 0 AND NOT a.attisdropped),
    (SELECT string_agg(tgname || tgenabled::text, ',' ORDER BY tgname) FROM pg_trigger WHERE NOT tgisinternal),
    (SELECT string_agg(p.proname || md5(p.prosrc), ',' ORDER BY p.proname, md5(p.prosrc))
        FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
        WHERE n.nspname NOT IN ('pg_catalog', 'information_schema'))
))
"""


def _snapshot(url: str) -> tuple[Any, str]:
    """The template's schema (as _SHAPE reads it), and the SQL that puts a copy of it back to the template's rows:
    every table emptied with the triggers off (they would count the rows going), the template's own rows (counters,
    migrations) inserted again, every sequence set as it is in the template."""
    import psycopg
    from psycopg import sql

    with psycopg.connect(url, autocommit=True) as conn:
        shape = conn.execute(_SHAPE).fetchone()
        tables = [
            str(name)
            for (name,) in conn.execute("SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY 1")
        ]
        statements = ["BEGIN", "SET LOCAL session_replication_role = replica"]
        statements += [sql.SQL("DELETE FROM {}").format(sql.Identifier(table)).as_string(conn) for table in tables]
        for table in tables:
            for row in conn.execute(sql.SQL("SELECT * FROM {}").format(sql.Identifier(table))).fetchall():
                values = sql.SQL(", ").join(sql.Literal(value) for value in row)
                statements.append(
                    sql.SQL("INSERT INTO {} VALUES ({})").format(sql.Identifier(table), values).as_string(conn)
                )
        for name, value, called in conn.execute(
            "SELECT format('%I.%I', schemaname, sequencename), COALESCE(last_value, 1), last_value IS NOT NULL "
            "FROM pg_sequences WHERE schemaname = 'public'"
        ).fetchall():
            statements.append(f"SELECT setval('{name}', {int(value)}, {'true' if called else 'false'})")
        statements.append("COMMIT")
    return shape, ";\n".join(statements)


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
