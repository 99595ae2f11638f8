"""A PostgreSQL server of a test's own on 127.0.0.1 as a team runs one: TLS with a self-signed certificate made here
(openssl), scram-sha-256 passwords over TCP, and roles made the way the README's recipe says.

The suite's shared cluster (tools/pg_cluster.py) listens on a unix socket with trust authentication, so it cannot
refuse a password or a certificate; the tests of connect-time failures and of roles need a server that does.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path
from typing import Any

from tests.backends import _pg_cluster

SUPERUSER = "memesh"


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class TlsServer:
    """One cluster: TCP on 127.0.0.1 with TLS on, scram passwords; `hba` lines decide what the server accepts."""

    def __init__(self, *, hostssl_only: bool = False) -> None:
        bindir = _pg_cluster().binaries()
        assert bindir is not None, "PostgreSQL is not installed"
        self.bindir = Path(bindir)
        self.folder = Path(tempfile.mkdtemp(prefix="memesh-pg-tls-"))
        self.data = self.folder / "data"
        self.as_postgres = os.geteuid() == 0  # initdb and the server refuse to run as root
        self.port = _free_port()
        self.ca = self.folder / "root.crt"  # the certificate a client trusts (self-signed: it is its own root)
        self.other_ca = self.folder / "other.crt"  # a root that did not sign the server's certificate
        self._certificates()
        if self.as_postgres:
            for path in (self.folder, *self.folder.iterdir()):
                shutil.chown(path, "postgres", "postgres")
        self._run("initdb", "-D", str(self.data), "-U", SUPERUSER, "--auth-local=trust", "--auth-host=scram-sha-256",
                  "-E", "UTF8", "--locale=C.UTF-8", "--no-sync")  # fmt: skip
        host = "hostssl" if hostssl_only else "host"
        (self.data / "pg_hba.conf").write_text(
            f"local all all trust\n{host} all all 127.0.0.1/32 scram-sha-256\n", encoding="utf-8"
        )
        options = (
            f"-c listen_addresses=127.0.0.1 -c port={self.port} -c unix_socket_directories={self.folder} "
            f"-c ssl=on -c ssl_cert_file={self.folder / 'server.crt'} -c ssl_key_file={self.folder / 'server.key'} "
            "-c password_encryption=scram-sha-256 -c fsync=off -c synchronous_commit=off -c max_connections=40"
        )
        self._run("pg_ctl", "-D", str(self.data), "-l", str(self.folder / "log"), "-w", "-o", options, "start")
        atexit.register(self.stop)  # a run that dies before its fixture's teardown leaves no server behind

    def _certificates(self) -> None:
        for name, cn in (("server", "localhost"), ("other", "other")):
            subprocess.run(
                ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", f"/CN={cn}",
                 "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1",
                 "-keyout", str(self.folder / f"{name}.key"), "-out", str(self.folder / f"{name}.crt")],
                check=True, capture_output=True,
            )  # fmt: skip
        shutil.copy(self.folder / "server.crt", self.ca)
        (self.folder / "server.key").chmod(0o600)

    def _run(self, program: str, *args: str) -> None:
        command = [str(self.bindir / program), *args]
        if self.as_postgres:
            command = ["runuser", "-u", "postgres", "--", *command]
        subprocess.run(command, check=True, capture_output=True, cwd=self.folder)

    def admin(self, database: str = "postgres") -> Any:
        """A superuser's connection over the unix socket (trust)."""
        import psycopg

        return psycopg.connect(
            f"postgresql://{SUPERUSER}@/{database}?host={self.folder}&port={self.port}", autocommit=True
        )

    def sql(self, database: str, *statements: str) -> None:
        with self.admin(database) as conn:
            for statement in statements:
                conn.execute(statement)

    def url(self, user: str, password: str, database: str, **params: str) -> str:
        """A TCP URL as a team member writes it (TLS verified against the test's root unless `params` say else)."""
        query = {"sslmode": "verify-full", "sslrootcert": str(self.ca), **params}
        joined = "&".join(f"{name}={value}" for name, value in query.items())
        return f"postgresql://{user}:{password}@127.0.0.1:{self.port}/{database}?{joined}"

    def stop(self) -> None:
        if self.data.exists():
            with contextlib.suppress(subprocess.CalledProcessError):
                self._run("pg_ctl", "-D", str(self.data), "-m", "immediate", "-w", "stop")
        shutil.rmtree(self.folder, ignore_errors=True)
