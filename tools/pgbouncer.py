"""A throwaway PgBouncer in front of a throwaway cluster (tools/pg_cluster.py), for the suite and the benchmarks.

Debian's `pgbouncer` package (`make postgres` installs it) gives the program. It listens on 127.0.0.1 on a free port
and reaches the cluster by its unix socket; any database name a client asks for is the cluster's database of that
name (`* =`), so every test database is reachable through it. Trust authentication (the user list names the
cluster's role), a small pool so that server connections are really shared between clients. PgBouncer refuses to
run as root, like initdb, so as root it runs as the `postgres` system user (runuser).

    python tools/pgbouncer.py [transaction|session]   # a cluster and a pooler; prints the pooler's URL
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

PROGRAM_PATHS = ("/usr/sbin/pgbouncer", "/usr/bin/pgbouncer")


def program() -> Path | None:
    """The pgbouncer program: Debian's, else PATH's."""
    for candidate in PROGRAM_PATHS:
        if Path(candidate).is_file():
            return Path(candidate)
    found = shutil.which("pgbouncer")
    return Path(found) if found else None


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class PgBouncer:
    """A PgBouncer process in a temporary folder, pooling `cluster` in `mode`; stopped and removed by `stop`."""

    def __init__(self, binary: Path, cluster: Any, *, mode: str = "transaction", pool_size: int = 2) -> None:
        self.folder = Path(tempfile.mkdtemp(prefix="memesh-pgbouncer-"))
        self.port = _free_port()
        self.role = cluster.url().split("://", 1)[1].split("@", 1)[0]
        (self.folder / "users.txt").write_text(f'"{self.role}" ""\n', encoding="utf-8")
        (self.folder / "pgbouncer.ini").write_text(
            "[databases]\n"
            f"* = host={cluster.folder}\n"
            "[pgbouncer]\n"
            "listen_addr = 127.0.0.1\n"
            f"listen_port = {self.port}\n"
            "unix_socket_dir =\n"
            "auth_type = trust\n"
            f"auth_file = {self.folder / 'users.txt'}\n"
            f"pool_mode = {mode}\n"
            f"default_pool_size = {pool_size}\n"
            "max_client_conn = 500\n"
            f"logfile = {self.folder / 'log'}\n"
            f"pidfile = {self.folder / 'pid'}\n",
            encoding="utf-8",
        )
        command = [str(binary), "-d", str(self.folder / "pgbouncer.ini")]
        if os.geteuid() == 0:  # pgbouncer refuses to run as root
            for path in (self.folder, *self.folder.iterdir()):
                shutil.chown(path, "postgres", "postgres")
            command = ["runuser", "-u", "postgres", "--", *command]
        subprocess.run(command, check=True, capture_output=True, cwd=self.folder)
        self._wait_listening()

    def _wait_listening(self, timeout: float = 10.0) -> None:
        deadline = time.monotonic() + timeout
        while True:
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", self.port), timeout=1):
                return
            if time.monotonic() > deadline:
                raise RuntimeError(f"pgbouncer did not listen within {timeout} s: {self.log()[-2000:]}")
            time.sleep(0.02)  # a process starting in the background: nothing to wait on but its port

    def url(self, cluster_url: str) -> str:
        """The URL that reaches the cluster's database of `cluster_url` through this pooler."""
        database = urlsplit(cluster_url).path.lstrip("/") or "postgres"
        return f"postgresql://{self.role}@127.0.0.1:{self.port}/{database}"

    def log(self) -> str:
        try:
            return (self.folder / "log").read_text(encoding="utf-8", errors="replace")
        except OSError:
            return ""

    def stop(self) -> None:
        with contextlib.suppress(OSError, ValueError):
            os.kill(int((self.folder / "pid").read_text().strip()), signal.SIGTERM)
        shutil.rmtree(self.folder, ignore_errors=True)


def main() -> int:
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import pg_cluster

    binary, bindir = program(), pg_cluster.binaries()
    if binary is None or bindir is None:
        print("needs PostgreSQL and PgBouncer: apt-get install -y postgresql pgbouncer (or `make postgres`)")
        return 1
    cluster = pg_cluster.Cluster(bindir, template=False)
    pooler = PgBouncer(binary, cluster, mode=sys.argv[1] if len(sys.argv) > 1 else "transaction")
    print(pooler.url(cluster.url()), flush=True)
    with contextlib.suppress(KeyboardInterrupt, EOFError):
        input()
    pooler.stop()
    cluster.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
