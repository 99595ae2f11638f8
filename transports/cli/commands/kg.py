"""Declarations of `memesh kg backfill-relations` and `memesh kg rename-project`: graph maintenance (flags, help)."""

from __future__ import annotations

from cyclopts import App

from memesh.transports.cli.params import Switch

kg = App(name="kg", help="Knowledge-graph maintenance: backfill relations, rename or merge a project.")


@kg.command(name="backfill-relations")
def backfill_relations(
    *,
    project: str | None = None,
    dry_run: Switch = False,
    max_per_source: int = 3,
    min_shared_tags: int = 2,
    session_cooccurrence: Switch = False,
    name_tokens: Switch = False,
    min_jaccard: float = 0.5,
    all_rules: Switch = False,
    no_evidence_links: Switch = False,
    include_archived: Switch = False,
    reset_idempotency: Switch = False,
    json_: Switch = False,
) -> int:
    """Heuristic relation backfill for orphan memories (no LLM): tag co-occurrence, project clustering and
    evidence links by default; session co-occurrence and name tokens on request.

    Parameters
    ----------
    project
        Only this project.
    dry_run
        Preview the edges without writing.
    max_per_source
        At most this many edges per orphan (default 3).
    min_shared_tags
        Topical tags two memories must share for a related-to edge (default 2).
    session_cooccurrence
        Also link high-signal orphans sharing a session:* tag (co-created).
    name_tokens
        Also link orphans whose names share tokens (shares-name-tokens).
    min_jaccard
        Name-token similarity threshold (default 0.50).
    all_rules
        Enable all five rules.
    no_evidence_links
        Do not link evidence captures to the work item they support.
    include_archived
        Also process archived memories.
    reset_idempotency
        Forget which orphans earlier runs considered, so every orphan is reconsidered.
    json_
        Print the result as JSON.
    """
    from memesh.transports.cli.actions import kg as actions

    return actions.backfill(
        project=project,
        dry_run=dry_run,
        max_per_source=max_per_source,
        min_shared_tags=min_shared_tags,
        session_cooccurrence=session_cooccurrence or all_rules,
        name_tokens=name_tokens or all_rules,
        min_jaccard=min_jaccard,
        evidence_links=not no_evidence_links,
        include_archived=include_archived,
        reset_idempotency=reset_idempotency,
        as_json=json_,
    )


@kg.command(name="rename-project")
def rename_project(
    *, from_: str | None = None, to: str | None = None, apply: Switch = False, json_: Switch = False
) -> int:
    """Rename or merge a project across every memory and durable message scoped to it. With no flags, list the
    projects; with --from/--to, preview on a copy (nothing written); add --apply to back up, then write.

    Parameters
    ----------
    from_
        The project to rewrite (omit both --from and --to to list the projects).
    to
        The project it becomes.
    apply
        Write the change (the database is backed up to backups/ beside it first).
    json_
        Print the result as JSON.
    """
    from memesh.transports.cli.actions import kg as actions

    return actions.rename(from_, to, apply=apply, as_json=json_)
