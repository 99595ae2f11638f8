"""Declarations of `memesh kg backfill-relations`, `memesh kg rename-project` and `memesh kg propose`: graph
maintenance and staging proposals for review (flags, help)."""

from __future__ import annotations

from typing import Annotated, Literal

from cyclopts import App, Parameter

from memesh.transports.cli.shapes import Switch

kg = App(
    name="kg",
    help="Knowledge-graph maintenance: backfill relations, rename or merge a project, stage a proposal for review.",
)


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


ProposalKind = Annotated[
    Literal["pattern_emergent", "relation", "guard"], Parameter(help="pattern_emergent, relation or guard.")
]


@kg.command(name="propose")
def propose(kind: ProposalKind, /, *, json_: Switch = False) -> int:
    """Stage a pattern_emergent, relation or guard proposal for human review, from one JSON object on stdin.
    Nothing is applied: a person accepts or rejects it with `memesh dream` (or the dashboard). The same proposal
    while it is pending is reported, not staged twice.

    relation: {"project", "from", "to", "relation_type": contradicts|supersedes|duplicates, "rationale"}.
    pattern_emergent: {"project", "source_names": [2-100 memories], "name", "observations": [...], "tags": [...]}.
    guard: {"project", "lesson", "pattern", "message", "should_match": [...], "should_not_match": [...]}.

    Parameters
    ----------
    json_
        Print the result as JSON.
    """
    from memesh.transports.cli.actions import kg as actions

    return actions.propose(kind, as_json=json_)
