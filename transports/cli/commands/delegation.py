"""Declaration of `memesh delegation record|verify` (the work: actions/delegation.py).

CLI only, by design: there is no MCP tool or HTTP route, so nothing a sandboxed worker can reach writes here.
"""

from __future__ import annotations

from typing import Annotated

from cyclopts import App, Parameter

from memesh.transports.cli.exits import usage
from memesh.transports.cli.shapes import Switch

delegation = App(name="delegation", help="Record a task delegated to an untrusted worker, and your verdict on it.")

# `--allow-tool a --allow-tool b`: one tool per flag, as the spec spells it.
Tools = Annotated[list[str] | None, Parameter(negative=())]
RECORD_VERDICTS = ("unreviewed", "accepted", "rejected")
VERIFY_VERDICTS = ("accepted", "rejected")


@delegation.command
def record(
    *,
    envelope: str,
    prompt_file: str,
    source: str,
    allow_tool: Tools = None,
    verdict: str = "unreviewed",
    follow_up: str | None = None,
    json_: Switch = False,
) -> int:
    """Store one delegation record: the prompt's sha256 and what the worker's envelope reports, never their text.

    Parameters
    ----------
    envelope
        The worker client's JSON envelope (a JSON object with a boolean `ok`; at most 4 MiB).
    prompt_file
        The prompt that was sent; only its sha256 is stored.
    source
        Which worker or skill the delegation went through, e.g. deepseek-worker.
    allow_tool
        A tool you granted the worker; repeat for each. Recorded as authoritative over the envelope's list.
    verdict
        unreviewed (default), accepted or rejected.
    follow_up
        What you decided to do next, stored as one line.
    json_
        Print the result as JSON.
    """
    if verdict not in RECORD_VERDICTS:
        return usage(f"--verdict must be unreviewed, accepted or rejected, not {verdict!r}")
    from memesh.transports.cli.actions import delegation as actions

    return actions.record(
        envelope, prompt_file, source=source, allow_tool=allow_tool, verdict=verdict, follow_up=follow_up, as_json=json_
    )


@delegation.command
def verify(name: str, /, *, verdict: str | None = None, note: str | None = None, json_: Switch = False) -> int:
    """Give a delegation record your verdict: its trust changes in place and the verdict is added as a line.

    Parameters
    ----------
    name
        The delegation record's name (delegation-…).
    verdict
        accepted or rejected.
    note
        Why, stored with the verdict.
    json_
        Print the result as JSON.
    """
    if verdict not in VERIFY_VERDICTS:
        return usage("--verdict must be accepted or rejected" + ("" if verdict is None else f", not {verdict!r}"))
    from memesh.transports.cli.actions import delegation as actions

    return actions.verify(name, verdict, note, as_json=json_)
