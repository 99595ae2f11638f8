"""Entries of the operations on a whole database as such, whichever engine holds it: copying one into another."""

from __future__ import annotations

from typing import TYPE_CHECKING

from memesh.app.registry import Op, Operation
from memesh.app.resources import Resources

if TYPE_CHECKING:
    from memesh.generated.cli.copy_database_input import CopyDatabaseInput
    from memesh.generated.cli.copy_database_output import CopyDatabaseOutput


def _copy_database() -> Operation[Resources, CopyDatabaseInput, CopyDatabaseOutput]:
    from memesh.ops.copy_database import copy_database

    return copy_database


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

OPS: tuple[Op[Resources, CopyDatabaseInput, CopyDatabaseOutput], ...] = (COPY_DATABASE,)
