"""Declarations of `memesh dream list|show|accept|reject`: the human review of staged proposals (flags and help).

These commands never create a proposal and never wake an agent: an agent stages with the MCP work_package or
improvement tool; a person reviews here (or in the dashboard). Each imports its implementation when it runs.
"""

from __future__ import annotations

from typing import Annotated

from cyclopts import App, Parameter

from memesh.transports.cli.shapes import Switch

dream = App(name="dream", help="Review proposals agents staged: list, show, accept, reject (human authority).")

ProposalId = Annotated[int, Parameter(help="The proposal's id, as `memesh dream list` shows it.")]


@dream.command(name="list")
def list_(*, status: str = "pending", json_: Switch = False) -> int:
    """List staged proposals, newest first.

    Parameters
    ----------
    status
        pending (default), applied, rejected or all.
    json_
        Print the list as JSON.
    """
    from memesh.transports.cli.actions import dream as actions

    return actions.list_proposals(status, as_json=json_)


@dream.command
def show(proposal_id: ProposalId, /, *, json_: Switch = False) -> int:
    """Print the complete proposal (payload and retained evidence) before reviewing it.

    Parameters
    ----------
    json_
        Print it as JSON.
    """
    from memesh.transports.cli.actions import dream as actions

    return actions.show(proposal_id, as_json=json_)


@dream.command
def accept(proposal_id: ProposalId, /, *, json_: Switch = False) -> int:
    """Accept a pending proposal and apply it now, in one transaction.

    Parameters
    ----------
    json_
        Print the result as JSON.
    """
    from memesh.transports.cli.actions import dream as actions

    return actions.accept(proposal_id, as_json=json_)


@dream.command
def reject(proposal_id: ProposalId, /, *, reason: str | None = None, json_: Switch = False) -> int:
    """Reject a pending proposal; no memory changes.

    Parameters
    ----------
    reason
        Why (at most 500 characters); shown with the proposal from then on.
    json_
        Print the result as JSON.
    """
    from memesh.transports.cli.actions import dream as actions

    return actions.reject(proposal_id, reason, as_json=json_)
