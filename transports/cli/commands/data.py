"""Declarations of `memesh export`, `memesh import` and `memesh reindex`: flags and help only.

Registered on the app by app.py; each imports its implementation (actions/backup.py, actions/memory.py) when it runs.
"""

from __future__ import annotations

from typing import Annotated

from cyclopts import Parameter

from memesh.transports.cli.shapes import Int, Switch


def export(
    *,
    tag: str | None = None,
    namespace: str | None = None,
    limit: Int = 1000,
    out: Annotated[str | None, Parameter(name=["--out", "-o"])] = None,
    force: Switch = False,
    database: str | None = None,
    json_: Switch = False,
) -> int:
    """Export memories (archived ones included) as a JSON bundle: to stdout, or to a file with -o.

    The default limit is a subset, not a backup: a larger graph exports the newest --limit memories and says so
    on stderr. For a full backup, pass a limit above your graph size.

    Parameters
    ----------
    tag
        Only memories with this tag, e.g. project:NAME.
    namespace
        Only this namespace: personal, team or global.
    limit
        At most this many memories, newest first (default 1000).
    out
        Write the bundle to this file instead of stdout (its folder must exist; an existing file needs --force).
    force
        With -o: overwrite the file if it exists (it is left owner-only, 0600).
    database
        The database to use instead of the configured one: a SQLite file's path or a postgresql:// URL.
    json_
        Compact JSON: the bundle on one line, or with -o a one-line summary of what was written.
    """
    from memesh.transports.cli.actions import backup
    from memesh.transports.cli.database import database_option

    with database_option(database):
        return backup.export(tag=tag, namespace=namespace, limit=limit, out=out, force=force, as_json=json_)


def import_(
    file: str | None = None,
    /,
    *,
    merge: str | None = None,
    namespace: str | None = None,
    restore_archived: Switch = False,
    trust: Switch = False,
    yes: Switch = False,
    notes: str | None = None,
    project: str | None = None,
    format_: str | None = None,
    dry_run: Switch = False,
    database: str | None = None,
    author: str | None = None,
    json_: Switch = False,
) -> int:
    """Import a JSON bundle made by `memesh export`, the TypeScript MeMesh's knowledge-graph.db, the official MCP
    memory server's memory.jsonl, or a folder of note files (--notes); exit 1 on any error.

    Imported memories are untrusted (recall finds them; they are not injected into new sessions) unless you
    restore your OWN backup with --trust.

    Parameters
    ----------
    file
        The JSON file written by `memesh export`, a knowledge-graph.db the TypeScript MeMesh wrote (only read), or
        a memory.jsonl of the official MCP memory server; told apart by their content.
    merge
        What to do with a memory you already have: skip (default), overwrite or append.
    namespace
        File every imported memory under this namespace (with overwrite or append, existing ones move too).
    restore_archived
        Bring back memories you archived (forgot) that the file names; needs --merge append or overwrite.
    trust
        For your own backup only: mark the imported memories trusted, after a [y/N] confirmation.
    yes
        Skip the --trust confirmation (needed without a terminal).
    notes
        A folder of Markdown note files with frontmatter (one memory per file) instead of a JSON file.
    project
        With --notes: the project the memories belong to (default: this directory's project).
    format_
        Read FILE as this format instead of telling it by its content: bundle, memesh-db or mcp-memory.
    dry_run
        Say what FILE holds and which names would be given another one; import nothing.
    database
        The database to use instead of the configured one: a SQLite file's path or a postgresql:// URL.
    author
        Who imported memories that name no author are recorded as written by (a memory the file says someone wrote
        keeps that author), instead of MEMESH_AUTHOR or config.json's author.
    json_
        Print the result as JSON.
    """
    from memesh.transports.cli.actions import backup
    from memesh.transports.cli.author import as_author
    from memesh.transports.cli.database import database_option

    with database_option(database):
        return as_author(
            author,
            lambda: backup.import_command(
                file,
                merge=merge,
                namespace=namespace,
                restore_archived=restore_archived,
                trust=trust,
                yes=yes,
                notes=notes,
                project=project,
                as_json=json_,
                format_=format_,
                dry_run=dry_run,
            ),
        )


def reindex(*, fts: Switch = False, vectors: Switch = False, json_: Switch = False) -> int:
    """Rebuild an index recall uses from the stored memories; the memories themselves are untouched.

    --fts rebuilds the keyword index, and only it, in every recall mode. --vectors stores hybrid recall's vectors
    for the memories that have none (written before hybrid was on, or under another model); it needs recall mode
    hybrid and the semantic extra. Give one or both.

    Parameters
    ----------
    fts
        Rebuild the keyword (FTS) index: no embeddings are computed and no vectors are touched.
    vectors
        Store hybrid's vectors for every memory missing them (a second run stores none); exit 1 outside hybrid.
    json_
        Print {"entities": N} as JSON ({"entities": N, "embedded": M} with --vectors).
    """
    from memesh.transports.cli.actions import memory

    return memory.reindex(fts=fts, vectors=vectors, as_json=json_)
