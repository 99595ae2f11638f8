"""Roles on a team's PostgreSQL, made with exactly the README's recipe on a real server (TLS, scram passwords): the
owner migrates with `memesh db migrate`; a member reads and writes; a read-only member recalls and is refused
writes; a member facing a schema behind its MeMesh is refused with the fix named and nothing applied."""

from __future__ import annotations

import dataclasses
import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from returns.result import Failure, Success

from memesh.context import CallContext
from memesh.errors import ErrorCode
from memesh.store.errors import StoreError
from memesh.store.postgres import open_postgres
from memesh.store.postgres_migrations import MIGRATIONS
from tests.calls import call
from tests.store.tls_server import TlsServer

README = Path(__file__).resolve().parents[2] / "README.md"
PASSWORDS = {"memesh_owner": "owner-secret", "alice": "alice-secret", "auditor": "auditor-secret"}
LATEST = MIGRATIONS[-1][0]


def recipe(part: str) -> list[str]:
    """The statements of the README's `<!-- roles-recipe: part -->` SQL block, as written there."""
    text = README.read_text(encoding="utf-8")
    found = re.search(rf"<!-- roles-recipe: {part} -->\s*```sql\n(.*?)```", text, re.DOTALL)
    assert found is not None, f"README has no roles-recipe {part} block"
    lines = [line.strip() for line in found.group(1).splitlines()]
    body = " ".join(line for line in lines if line and not line.startswith("--"))
    return [statement.strip() for statement in body.split(";") if statement.strip()]


class Team:
    """The README's roles on a server of the test's own; `url(role)` is how that member's MEMESH_DATABASE_URL reads."""

    def __init__(self, server: TlsServer) -> None:
        self.server = server
        server.sql("postgres", *recipe("admin"))

    def url(self, role: str) -> str:
        return self.server.url(role, PASSWORDS[role], "memesh")

    def memesh(self, role: str, *argv: str, home: Path) -> subprocess.CompletedProcess[str]:
        """The installed `memesh` as that member types it, with MEMESH_DATABASE_URL naming the team's database."""
        environ = {
            name: value
            for name, value in os.environ.items()
            if (not name.startswith("MEMESH_") or name == "MEMESH_DAEMON")
        }
        environ.update(MEMESH_DATABASE_URL=self.url(role), MEMESH_DIR=str(home / role), HOME=str(home))
        return subprocess.run(
            [str(Path(sys.executable).parent / "memesh"), *argv],
            capture_output=True,
            text=True,
            env=environ,
            timeout=120,
            check=False,
        )

    def as_owner(self, *statements: str) -> None:
        import psycopg

        with psycopg.connect(self.url("memesh_owner"), autocommit=True) as conn:
            for statement in statements:
                conn.execute(statement)


@pytest.fixture(scope="module")
def server() -> Iterator[TlsServer]:
    started = TlsServer()
    try:
        yield started
    finally:
        started.stop()


@pytest.fixture
def team(server: TlsServer) -> Iterator[Team]:
    made = Team(server)
    yield made
    server.sql("postgres", "DROP DATABASE memesh WITH (FORCE)", "DROP ROLE alice", "DROP ROLE auditor")
    server.sql("postgres", "DROP ROLE memesh_owner")


def _migrated(team: Team, tmp_path: Path) -> dict[str, Any]:
    done = team.memesh("memesh_owner", "db", "migrate", "--json", home=tmp_path)
    assert done.returncode == 0, done.stderr
    team.as_owner(*recipe("owner"))
    answer: dict[str, Any] = json.loads(done.stdout)
    return answer


def _fails(role: str, team: Team) -> StoreError:
    with pytest.raises(StoreError) as caught:
        open_postgres(team.url(role))
    return caught.value


def test_the_owner_migrates_and_a_member_and_a_read_only_member_work_as_the_readme_says(
    team: Team, tmp_path: Path, ctx: CallContext
) -> None:
    migrated = _migrated(team, tmp_path)
    assert [step["version"] for step in migrated["applied"]] == [version for version, _, _ in MIGRATIONS]
    assert (migrated["version"], migrated["newer"]) == (LATEST, [])
    assert "owner-secret" not in migrated["database"] and "memesh_owner" in migrated["database"]

    alice = open_postgres(team.url("alice"))
    try:
        stored = call("remember", alice, {"name": "team-decision", "type": "decision", "observations": ["use pg"]}, ctx)
        assert isinstance(stored, Success), stored
        found = call("recall", alice, {"query": "pg"}, ctx)
        assert [entity["name"] for entity in found.unwrap()["entities"]] == ["team-decision"]
    finally:
        alice.close()

    auditor = open_postgres(team.url("auditor"))
    try:
        in_session = dataclasses.replace(ctx, caller_session="auditor-session")  # citation credit: refused too
        for context in (ctx, ctx, in_session):  # the access count is refused each time, and recall still answers
            found = call("recall", auditor, {"query": "pg"}, context)
            assert [entity["name"] for entity in found.unwrap()["entities"]] == ["team-decision"]
        refused = call("remember", auditor, {"name": "auditor-note", "type": "note", "observations": ["x"]}, ctx)
        match refused:
            case Failure(error):
                assert (error.code, error.data["store"]) == (ErrorCode.OPERATION_FAILED, "read-only")
            case _:
                pytest.fail(f"a read-only member's remember was not refused: {refused}")
    finally:
        auditor.close()

    rows = {role: _doctor_row(team, role, tmp_path) for role in ("alice", "auditor")}
    assert rows["alice"]["status"] == "pass" and "reason" not in rows["alice"]
    assert (rows["auditor"]["status"], rows["auditor"]["reason"]) == ("warn", "read-only")
    assert not any(role in json.dumps(list(rows.values())) for role in PASSWORDS), rows  # doctor hides the user


def test_a_member_facing_an_unmigrated_database_is_refused_naming_the_owners_fix(team: Team, tmp_path: Path) -> None:
    refusal = _fails("alice", team)
    assert (refusal.error.code, refusal.error.data["store"]) == (ErrorCode.STORE_UNAVAILABLE, "schema-behind")
    assert "memesh db migrate" in refusal.error.message and refusal.error.unavailable
    import psycopg

    with psycopg.connect(team.url("memesh_owner")) as conn:  # nothing was created by the member's attempt
        assert conn.execute("SELECT to_regclass('schema_migrations')").fetchone() == (None,)
    row = _doctor_row(team, "alice", tmp_path)
    assert (row["status"], row["reason"]) == ("fail", "schema-behind")


def test_after_an_upgrade_a_member_is_refused_until_the_owner_migrates_and_nothing_is_half_applied(
    team: Team, tmp_path: Path
) -> None:
    _migrated(team, tmp_path)
    # As after installing a MeMesh one migration newer than the schema: its last migration not yet recorded.
    team.as_owner(f"DELETE FROM schema_migrations WHERE version = {LATEST}")
    refusal = _fails("alice", team)
    assert refusal.error.data["store"] == "schema-behind" and f"migration {LATEST}" in refusal.error.message
    done = team.memesh("alice", "recall", "x", "--json", home=tmp_path)
    assert done.returncode == 1
    assert (json.loads(done.stdout)["errorCode"], json.loads(done.stdout)["store"]) == (
        "store.unavailable",
        "schema-behind",
    )
    refused = team.memesh("alice", "db", "migrate", "--json", home=tmp_path)
    assert refused.returncode == 1 and json.loads(refused.stdout)["store"] == "schema-behind"

    migrated = team.memesh("memesh_owner", "db", "migrate", "--json", home=tmp_path)
    assert [step["version"] for step in json.loads(migrated.stdout)["applied"]] == [LATEST]
    open_postgres(team.url("alice")).close()


def test_a_database_a_newer_memesh_migrated_still_opens_and_doctor_and_migrate_say_so(
    team: Team, tmp_path: Path
) -> None:
    _migrated(team, tmp_path)
    team.as_owner("INSERT INTO schema_migrations (version, name, applied_at) VALUES (999, 'from the future', 'now')")
    open_postgres(team.url("alice")).close()
    again = json.loads(team.memesh("memesh_owner", "db", "migrate", "--json", home=tmp_path).stdout)
    assert (again["applied"], again["newer"], again["version"]) == ([], [999], 999)
    row = _doctor_row(team, "alice", tmp_path)
    assert (row["status"], row["reason"]) == ("warn", "schema-ahead")


def _doctor_row(team: Team, role: str, tmp_path: Path) -> dict[str, Any]:
    done = team.memesh(role, "doctor", "--json", home=tmp_path)
    row: dict[str, Any] = next(check for check in json.loads(done.stdout)["checks"] if check["id"] == "database")
    return row
