"""Entries of the operations on a whole database as such, whichever engine holds it: copying one into another,
and migrating one's schema."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from memesh.app.registry import Op, Operation
from memesh.app.resources import Resources

if TYPE_CHECKING:
    from memesh.generated.cli.copy_database_input import CopyDatabaseInput
    from memesh.generated.cli.copy_database_output import CopyDatabaseOutput
    from memesh.generated.cli.migrate_database_input import MigrateDatabaseInput
    from memesh.generated.cli.migrate_database_output import MigrateDatabaseOutput


def _copy_database() -> Operation[Resources, CopyDatabaseInput, CopyDatabaseOutput]:
    from memesh.ops.copy_database import copy_database

    return copy_database


def _migrate_database() -> Operation[Resources, MigrateDatabaseInput, MigrateDatabaseOutput]:
    from memesh.ops.migrate_database import migrate_database

    return migrate_database


def _databases(resources: Resources) -> Resources:
    return resources


COPY_DATABASE = Op(
    name="copy_database",
    input_schema="cli/copy_database.input",
    output_schema="cli/copy_database.output",
    load=_copy_database,
    uses=_databases,
    summary="Copy a whole database (SQLite file or PostgreSQL) into an empty one, all or nothing",
)

MIGRATE_DATABASE = Op(
    name="migrate_database",
    input_schema="cli/migrate_database.input",
    output_schema="cli/migrate_database.output",
    load=_migrate_database,
    uses=_databases,
    summary="Bring a database's schema up to this MeMesh's (the owner role's step after an upgrade)",
)

OPS: tuple[Op[Resources, Any, Any], ...] = (COPY_DATABASE, MIGRATE_DATABASE)
