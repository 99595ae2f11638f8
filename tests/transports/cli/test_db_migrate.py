"""`memesh db migrate` as a person types it: it says what it applied, then that nothing is left; on either engine."""

from __future__ import annotations

from pathlib import Path

from memesh.store.migrations import MIGRATIONS
from tests.backends import Backend
from tests.transports.cli.conftest import Cli


def test_db_migrate_applies_every_migration_of_a_new_file_once_then_nothing(cli: Cli, tmp_path: Path) -> None:
    target = str(tmp_path / "new.db")
    first = cli.ok("db", "migrate", "--database", target, "--json").json()
    assert [step["version"] for step in first["applied"]] == [version for version, _, _ in MIGRATIONS]
    again = cli.ok("db", "migrate", "--database", target, "--json").json()
    assert (again["applied"], again["version"], again["newer"]) == ([], MIGRATIONS[-1][0], [])
    assert "up to date" in cli.ok("db", "migrate", "--database", target).out


def test_db_migrate_without_database_migrates_the_configured_one(cli: Cli, backend: Backend) -> None:
    first = cli.ok("db", "migrate", "--json").json()
    assert first["version"] == MIGRATIONS[-1][0]
    assert cli.ok("db", "migrate", "--json").json()["applied"] == []


def test_db_migrate_refuses_an_empty_database_argument_with_a_stable_code(cli: Cli) -> None:
    outcome = cli("db", "migrate", "--database", "", "--json")
    assert (outcome.code, outcome.json()["errorCode"]) == (1, "validation.bad-body")
