"""Declarations of the memory commands (remember, recall, forget, learn, task, pin, unpin, export-schema): flags and
help only, each importing its action (actions/memory.py) when it runs.

This module imports no Cyclopts: the front (front.py) runs these commands from their declarations as written, and
Cyclopts' tree registers the same functions when it is built (tree.py).
"""

from __future__ import annotations

import re

from memesh.transports.cli import params

FLAG_SHAPED = re.compile(r"--?[A-Za-z][\w-]*(=.*)?")  # `--bogus`, `-x`: a mistyped flag, not text


def remember(
    text: params.Text = None,
    /,
    *,
    name: str | None = None,
    type_: str | None = None,
    title: str | None = None,
    obs: params.Many = None,
    tags: params.Many = None,
    namespace: str | None = None,
    supersedes: params.Many = None,
    contradicts: params.Many = None,
    replace: params.Switch = False,
    author: str | None = None,
    json_: params.Switch = False,
) -> int:
    """Store a memory: free text alone (title, observations and name derived), or --name and --type with --obs.

    Parameters
    ----------
    text
        Free text. Alone it is a note; with --obs, --title or --name it is kept as its own observations.
    name
        The memory's name (required with --replace).
    type_
        Its type, e.g. decision, pattern, lesson_learned (default note when the name is derived).
    title
        A short label; wins over the title derived from the text.
    obs
        Observations, after the text's own.
    tags
        Tags, e.g. project:NAME topic:database.
    namespace
        personal (default), team or global; on an existing memory this moves it.
    supersedes
        Names of memories this one replaces: they are archived now.
    contradicts
        Names of memories this one contradicts: recall reports the conflict.
    replace
        Rewrite the named memory instead of appending (its previous version is kept in its history).
    author
        Who this write is recorded as (metadata.provenance.author), instead of MEMESH_AUTHOR or config.json's author.
    json_
        Print the result as JSON.
    """
    from memesh.transports.cli.actions import memory
    from memesh.transports.cli.app import after_end_of_options
    from memesh.transports.cli.exits import usage

    if text is not None and FLAG_SHAPED.fullmatch(text) and not after_end_of_options(text):
        return usage(f"Unknown option: {text}. Text that starts with a hyphen and reads like a flag goes after --.")
    from memesh.transports.cli.author import as_author

    return as_author(
        author,
        lambda: memory.remember(
            text,
            name=name,
            entity_type=type_,
            title=title,
            observations=obs,
            tags=tags,
            namespace=namespace,
            supersedes=supersedes,
            contradicts=contradicts,
            replace=replace,
            as_json=json_,
        ),
    )


def recall(
    *query: str,
    tag: str | None = None,
    since: str | None = None,
    until: str | None = None,
    limit: params.OptionalInt = None,
    include_archived: params.Switch = False,
    namespace: str | None = None,
    cross_project: params.Switch = False,
    json_: params.Switch = False,
) -> int:
    """Search memories by keyword; without a query, list the recent ones.

    Parameters
    ----------
    query
        Search terms (quoted or not: `memesh recall auth flow` searches for both words).
    tag
        Only memories with this tag, e.g. project:NAME.
    since
        Only memories created from this time on: 2026-03-01, 2026-03-01T09:30:00Z, or yesterday, "10 days ago",
        "last week", "past month", "in March" (UTC, against the current clock).
    until
        Only memories created up to the end of this time (same forms as --since).
    limit
        At most this many results (default 20, max 100).
    include_archived
        Include forgotten (archived) memories.
    namespace
        Only this namespace: personal, team or global.
    cross_project
        Search every project and namespace: ignores --namespace and a --tag that starts with project:.
    json_
        Print the result envelope as JSON (size-capped, like the MCP tool).
    """
    from memesh.transports.cli.actions import memory

    return memory.recall(
        " ".join(query) if query else None,
        tag=tag,
        since=since,
        until=until,
        limit=limit,
        include_archived=include_archived,
        namespace=namespace,
        cross_project=cross_project,
        as_json=json_,
    )


def forget(*, name: str, observation: str | None = None, json_: params.Switch = False) -> int:
    """Archive a memory (recoverable), or remove one of its observations; exit 1 when nothing changed.

    Parameters
    ----------
    name
        The memory's name.
    observation
        Remove only the observation with exactly this text.
    json_
        Print the result as JSON.
    """
    from memesh.transports.cli.actions import memory

    return memory.forget(name, observation=observation, as_json=json_)


def learn(
    *,
    error: str,
    fix: str,
    root_cause: str | None = None,
    prevention: str | None = None,
    severity: str | None = None,
    project: str | None = None,
    author: str | None = None,
    json_: params.Switch = False,
) -> int:
    """Record a lesson from a mistake or discovery (a lesson_learned memory the project's sessions are shown).

    Parameters
    ----------
    error
        What went wrong.
    fix
        What fixed it.
    root_cause
        Why it happened.
    prevention
        How to prevent it next time.
    severity
        critical, major or minor (default minor).
    project
        The project it belongs to (default: this directory's project).
    author
        Who this write is recorded as (metadata.provenance.author), instead of MEMESH_AUTHOR or config.json's author.
    json_
        Print the result as JSON.
    """
    from memesh.transports.cli.actions import memory
    from memesh.transports.cli.author import as_author

    return as_author(
        author,
        lambda: memory.learn(
            error=error,
            fix=fix,
            root_cause=root_cause,
            prevention=prevention,
            severity=severity,
            project=project,
            as_json=json_,
        ),
    )


def task(
    *,
    project: str | None = None,
    goal: str | None = None,
    next_: str | None = None,
    blocked: str | None = None,
    done: str | None = None,
    author: str | None = None,
    json_: params.Switch = False,
) -> int:
    """Read where the work stands on a project, or record what the user stated ("" clears a field).

    Parameters
    ----------
    project
        The project (default: this directory's project).
    goal
        What this work is for.
    next_
        The next concrete step.
    blocked
        What is standing in the way.
    done
        What was just finished.
    author
        Who this write is recorded as (metadata.provenance.author), instead of MEMESH_AUTHOR or config.json's author.
    json_
        Print the result as JSON.
    """
    from memesh.transports.cli.actions import memory
    from memesh.transports.cli.author import as_author

    return as_author(
        author,
        lambda: memory.task(project=project, goal=goal, next_step=next_, blocked=blocked, done=done, as_json=json_),
    )


def pin(*, name: str, json_: params.Switch = False) -> int:
    """Protect a memory from digest work-package selection; exit 1 when there is no such memory.

    Parameters
    ----------
    name
        The memory's name.
    json_
        Print {name, pinned, found} as JSON.
    """
    from memesh.transports.cli.actions import memory

    return memory.pin(name, pinned=True, as_json=json_)


def unpin(*, name: str, json_: params.Switch = False) -> int:
    """Release a pinned memory to digest work packages again; exit 1 when there is no such memory.

    Parameters
    ----------
    name
        The memory's name.
    json_
        Print {name, pinned, found} as JSON.
    """
    from memesh.transports.cli.actions import memory

    return memory.pin(name, pinned=False, as_json=json_)


def export_schema(*, format_: str = "openai", strict: params.Switch = False) -> int:
    """Print every tool as an OpenAI function-calling definition (a JSON array).

    Parameters
    ----------
    format_
        Output format; only openai.
    strict
        OpenAI's strict form (`"strict": true`): every property required, an optional one nullable (null means not
        given: drop it before calling), every object closed, no keyword strict mode refuses.
    """
    from memesh.transports.cli.actions import memory

    return memory.export_schema(format_, strict=strict)
