"""db migrate: a database's schema brought up to this MeMesh's, by the role that owns it (CLI only).

Every open migrates a database its role may change, so for a SQLite file or an owner this is what any command does,
said out loud; for a team's PostgreSQL whose members may not change the schema, it is the one step the owner runs
after an upgrade (a member's open is refused with `schema-behind` until then).
"""

from __future__ import annotations

from typing import Protocol

from returns.result import Failure, Result, Success

from memesh.context import CallContext
from memesh.errors import MemeshError
from memesh.generated.cli.migrate_database_input import MigrateDatabaseInput
from memesh.generated.cli.migrate_database_output import MigrateDatabaseOutput


class MigratedStore(Protocol):
    migrated: list[tuple[int, str]]

    def missing_migrations(self) -> list[int]: ...
    def newer_migrations(self) -> list[int]: ...
    def recorded_version(self) -> int: ...
    def close(self) -> None: ...


class Databases(Protocol):
    """Opening a database by what a person typed (a path, a URL, or None for the configured one), migrated."""

    def open_at(self, target: str | None) -> MigratedStore: ...
    def described(self, target: str | None) -> str: ...


def migrate_database(
    databases: Databases, request: MigrateDatabaseInput, *, ctx: CallContext
) -> Result[MigrateDatabaseOutput, MemeshError]:
    """The migrations applied (none when the schema was up to date); Failure with the database's own error when it
    will not open, store.unavailable `schema-behind` when this role may not change the schema, operation.failed
    `read-only` when a file opened read-only still lacks some."""
    target = request.get("database")
    try:
        store = databases.open_at(target)
    except Exception as exc:  # StoreError: its error names no host or password
        error = getattr(exc, "error", None)
        if not isinstance(error, MemeshError):
            raise
        return Failure(error)
    try:
        missing = store.missing_migrations()
        if missing:  # a file opened read-only (its permissions refuse writes): it opened, but nothing was applied
            return Failure(
                MemeshError.failed(
                    f"the database is read-only here: migrations {missing} could not be applied; check its permissions",
                    store="read-only",
                    missing=missing,
                )
            )
        return Success(
            {
                "database": databases.described(target),
                "applied": [{"version": version, "name": name} for version, name in store.migrated],
                "version": store.recorded_version(),
                "newer": store.newer_migrations(),
            }
        )
    finally:
        store.close()
