"""Declaration of `memesh db copy` (a whole database into an empty one, SQLite and PostgreSQL either way) and
`memesh db migrate` (a schema brought up to this MeMesh's): flags, help. Each is an operation through the door
(memesh.ops.copy_database, memesh.ops.migrate_database)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from cyclopts import App

from memesh.transports.cli.shapes import Switch

if TYPE_CHECKING:
    from memesh.generated.cli.copy_database_output import CopyDatabaseOutput
    from memesh.generated.cli.migrate_database_output import MigrateDatabaseOutput

db = App(
    name="db",
    help="The database as a whole: copy one (a SQLite file or PostgreSQL) into an empty one, or migrate its schema.",
)


@db.command(name="copy")
def copy(*, from_: str, to: str, json_: Switch = False) -> int:
    """Copy every memory, relation, tag, proposal, message, receipt and session registration, with their ids, into
    an empty database, in one transaction: all of it or, on any failure, nothing.

    Move an existing memory into a team's PostgreSQL (--from ~/.memesh/knowledge-graph.db --to postgresql://…), or
    take one back into a file (--from postgresql://… --to ./memory.db). The source is held still while it is read.

    Parameters
    ----------
    from_
        The database to copy: a SQLite file's path, or a postgresql:// URL.
    to
        The database to copy into: a SQLite file's path (created when missing) or a postgresql:// URL; it must
        hold no memory, message or proposal yet.
    json_
        Print the result as JSON.
    """
    from memesh.app.operations.database import COPY_DATABASE
    from memesh.transports.cli.actions.memory import report, run_op

    def text(done: CopyDatabaseOutput) -> str:
        counts = ", ".join(f"{count} {table}" for table, count in done["copied"].items() if count)
        return f"Copied {done['from']} into {done['to']}: {counts or 'nothing (the source is empty)'}."

    return report(run_op(COPY_DATABASE, {"from": from_, "to": to}), as_json=json_, text=text)


@db.command(name="migrate")
def migrate(*, database: str | None = None, json_: Switch = False) -> int:
    """Bring the database's schema up to this MeMesh's: the numbered migrations it has not recorded, in one
    transaction.

    On a team's PostgreSQL the role that owns the schema runs this after installing a MeMesh that adds a migration;
    members (roles that may read and write rows but not change the schema) are refused until it has. A SQLite file,
    and a database its role owns, are migrated by any command as it opens them: this says what that applied.

    Parameters
    ----------
    database
        The database to migrate: a SQLite file's path or a postgresql:// URL (default: the configured database).
    json_
        Print the result as JSON.
    """
    from memesh.app.operations.database import MIGRATE_DATABASE
    from memesh.transports.cli.actions.memory import report, run_op

    def text(done: MigrateDatabaseOutput) -> str:
        applied = ", ".join(str(step["version"]) for step in done["applied"])  # names: under --json
        lines = [
            f"Migrated {done['database']}: applied migration{'s' if len(done['applied']) > 1 else ''} {applied}."
            if applied
            else f"{done['database']} is up to date (migration {done['version']}): nothing to apply."
        ]
        if done["newer"]:
            newer = ", ".join(str(version) for version in done["newer"])
            lines.append(f"It records migrations this MeMesh does not know ({newer}): a newer MeMesh migrated it.")
        return "\n".join(lines)

    arguments = {} if database is None else {"database": database}
    return report(run_op(MIGRATE_DATABASE, arguments), as_json=json_, text=text)
