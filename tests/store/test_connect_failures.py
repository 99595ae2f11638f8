"""A PostgreSQL that will not let MeMesh in says why, with a stable reason: a wrong password, a TLS root that did not
sign the server's certificate (or is missing), a server that takes only TLS, a database that is not there, a server
that is not there. Each against a real server on 127.0.0.1 with TLS and scram passwords; each is store.unavailable
and names no host, user or password."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from memesh.errors import ErrorCode
from memesh.store.errors import StoreError
from memesh.store.postgres import open_postgres
from tests.store.tls_server import TlsServer, _free_port

PASSWORD = "s3cret-Pw"


@pytest.fixture(scope="module")
def server() -> Iterator[TlsServer]:
    """One server for the module, taking TLS connections only (pg_hba `hostssl`), with alice's database."""
    started = TlsServer(hostssl_only=True)
    try:
        started.sql("postgres", f"CREATE ROLE alice LOGIN PASSWORD '{PASSWORD}'", "CREATE DATABASE team OWNER alice")
        yield started
    finally:
        started.stop()


def _refusal(url: str) -> StoreError:
    with pytest.raises(StoreError) as caught:
        open_postgres(url)
    error = caught.value.error
    for secret in (PASSWORD, "alice", "127.0.0.1"):
        assert secret not in error.message
    assert PASSWORD not in str(caught.value)
    return caught.value


def test_the_right_password_over_verified_tls_opens_the_database(server: TlsServer) -> None:
    store = open_postgres(server.url("alice", PASSWORD, "team"))
    try:
        assert store.count() == 0 and store.conn.raw.pgconn.ssl_in_use
    finally:
        store.close()


@pytest.mark.parametrize(
    ("case", "reason"),
    [
        ("wrong-password", "auth-failed"),
        ("no-password", "auth-failed"),
        ("missing-root-certificate", "tls-refused"),
        ("another-root-certificate", "tls-refused"),
        ("no-tls-asked", "tls-required"),
        ("no-such-database", "no-database"),
        ("no-server-listening", "unreachable"),
    ],
)
def test_a_connect_that_fails_is_unavailable_with_its_reason(
    server: TlsServer, tmp_path: Path, case: str, reason: str
) -> None:
    url = {
        "wrong-password": server.url("alice", "wrong-Pw", "team"),
        "no-password": server.url("alice", "", "team").replace(":@", "@"),
        "missing-root-certificate": server.url("alice", PASSWORD, "team", sslrootcert=str(tmp_path / "none.crt")),
        "another-root-certificate": server.url("alice", PASSWORD, "team", sslrootcert=str(server.other_ca)),
        "no-tls-asked": server.url("alice", PASSWORD, "team", sslmode="disable"),
        "no-such-database": server.url("alice", PASSWORD, "nowhere"),
        "no-server-listening": server.url("alice", PASSWORD, "team").replace(f":{server.port}/", f":{_free_port()}/"),
    }[case]
    error = _refusal(url).error
    assert (error.code, error.data["store"]) == (ErrorCode.STORE_UNAVAILABLE, reason)
    assert error.unavailable


def test_a_role_past_its_connection_limit_is_told_the_server_is_busy(server: TlsServer) -> None:
    server.sql("postgres", "ALTER ROLE alice CONNECTION LIMIT 1")
    try:
        first = open_postgres(server.url("alice", PASSWORD, "team"))
        try:
            error = _refusal(server.url("alice", PASSWORD, "team")).error
            assert (error.code, error.data["store"]) == (ErrorCode.STORE_UNAVAILABLE, "server-busy")
        finally:
            first.close()
    finally:
        server.sql("postgres", "ALTER ROLE alice CONNECTION LIMIT -1")


def test_a_role_granted_nothing_is_told_to_ask_the_owner_for_the_grants(server: TlsServer) -> None:
    open_postgres(server.url("alice", PASSWORD, "team")).close()  # migrated by its owner
    server.sql("postgres", "CREATE ROLE bob LOGIN PASSWORD 'bob-Pw'")
    try:
        error = _refusal(server.url("bob", "bob-Pw", "team")).error
        assert (error.code, error.data["store"]) == (ErrorCode.STORE_UNAVAILABLE, "not-granted")
    finally:
        server.sql("postgres", "DROP ROLE bob")


def test_doctor_names_each_connect_failure_by_its_reason_and_never_the_user(server: TlsServer, tmp_path: Path) -> None:
    cases = {
        "auth-failed": server.url("alice", "wrong-Pw", "team"),
        "tls-refused": server.url("alice", PASSWORD, "team", sslrootcert=str(server.other_ca)),
        "tls-required": server.url("alice", PASSWORD, "team", sslmode="disable"),
    }
    for reason, url in cases.items():
        row = _doctor_database_row(url, tmp_path)
        assert (row["status"], row["reason"]) == ("fail", reason)
        assert "alice" not in json.dumps(row) and PASSWORD not in json.dumps(row)
    row = _doctor_database_row(server.url("alice", PASSWORD, "team"), tmp_path)
    assert row["status"] == "pass" and "alice" not in row["detail"] and "PostgreSQL" in row["detail"]


def _doctor_database_row(url: str, tmp_path: Path) -> dict[str, Any]:
    """doctor --json as a person runs it, with MEMESH_DATABASE_URL set; its Database row."""
    environ = {
        name: value for name, value in os.environ.items() if (not name.startswith("MEMESH_") or name == "MEMESH_DAEMON")
    }
    environ.update(MEMESH_DATABASE_URL=url, MEMESH_DIR=str(tmp_path / "memesh"), HOME=str(tmp_path))
    done = subprocess.run(
        [str(Path(sys.executable).parent / "memesh"), "doctor", "--json"],
        capture_output=True,
        text=True,
        env=environ,
        timeout=60,
        check=False,
    )
    checks = json.loads(done.stdout)["checks"]
    return next(check for check in checks if check["id"] == "database")
