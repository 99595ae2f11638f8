"""Declarations of `memesh member add|list|revoke|audit`: the team's members and their audit (flags and help).

A member gets its own token for `memesh serve --allow-remote`, printed once; the database keeps only its hash, so
every server sharing the database knows the member. Each command imports its implementation when it runs.
"""

from __future__ import annotations

from typing import Annotated

from cyclopts import App, Parameter

from memesh.transports.cli.shapes import Switch

member = App(name="member", help="Team members with their own tokens: add, list, revoke, and the audit of writes.")

Name = Annotated[str, Parameter(help="The member's name (recorded as the author of what it writes).")]


@member.command
def add(
    name: Name,
    /,
    *,
    role: str,
    project: Annotated[
        list[str] | None, Parameter(help="A project it may use (repeat for more); absent: every project.")
    ] = None,
    expires_days: int | None = None,
    json_: Switch = False,
) -> int:
    """Add a member and print its token, once (only its hash is stored).

    Parameters
    ----------
    role
        reader (reads only), writer (reads and writes memories) or admin (also settings, members, audit).
    expires_days
        Its token stops working after this many days.
    json_
        Print {name, token, role, projects, created_at, expires_at} as JSON.
    """
    from memesh.transports.cli.actions import member as actions

    return actions.add(name, role, project, expires_days, as_json=json_)


@member.command(name="list")
def list_(*, all_: Switch = False, json_: Switch = False) -> int:
    """List the members with their roles, projects and last use (never a token).

    Parameters
    ----------
    all_
        Also list revoked members.
    json_
        Print the list as JSON.
    """
    from memesh.transports.cli.actions import member as actions

    return actions.list_members(include_revoked=all_, as_json=json_)


@member.command
def revoke(name: Name, /, *, json_: Switch = False) -> int:
    """Revoke a member: its token stops working from the next request.

    Parameters
    ----------
    json_
        Print the result as JSON.
    """
    from memesh.transports.cli.actions import member as actions

    return actions.revoke(name, as_json=json_)


@member.command
def audit(*, limit: int = 100, actor: str | None = None, json_: Switch = False) -> int:
    """Print the audit of writes, forgets and member changes, newest first.

    Parameters
    ----------
    limit
        At most this many entries (1-1000).
    actor
        Only this actor's entries.
    json_
        Print the entries as JSON.
    """
    from memesh.transports.cli.actions import member as actions

    return actions.audit(limit, actor, as_json=json_)
