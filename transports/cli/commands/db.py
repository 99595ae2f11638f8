"""Declaration of `memesh db copy`: a whole database into an empty one, SQLite and PostgreSQL either way (flags,
help). The copy itself is an operation through the door (memesh.ops.copy_database)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from cyclopts import App

from memesh.transports.cli.shapes import Switch

if TYPE_CHECKING:
    from memesh.generated.cli.copy_database_output import CopyDatabaseOutput

db = App(name="db", help="The database as a whole: copy one (a SQLite file or PostgreSQL) into an empty one.")


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
