"""Declarations of `memesh demo`, `feedback`, `stats` and `open`: flags and help only; each imports its action when it
runs."""

from __future__ import annotations

from memesh.transports.cli import params


def demo(*, reset: params.Switch = False, json_: params.Switch = False) -> int:
    """Load the demo tour (a dozen memories marked demo, project memesh-demo) to look around the dashboard; --reset
    removes exactly those memories again.

    Parameters
    ----------
    reset
        Remove every demo memory (and nothing else) instead of adding them.
    json_
        Print {inserted, removed} as JSON.
    """
    from memesh.transports.cli.actions import insight

    return insight.demo(reset=reset, as_json=json_)


def feedback(
    *,
    bug: params.Switch = False,
    feature: params.Switch = False,
    question: params.Switch = False,
    message: str | None = None,
    no_diagnostics: params.Switch = False,
    no_open: params.Switch = False,
) -> int:
    """Build a pre-filled public GitHub issue; it prints the exact body and opens the form for you to review and
    submit. Nothing is ever submitted automatically.

    Parameters
    ----------
    bug
        Report a bug.
    feature
        Ask for a feature.
    question
        Ask a question.
    message
        A first line for the issue (its title) and its opening text.
    no_diagnostics
        Leave out the redacted diagnostics (version, platform, install ID, database counts, settings).
    no_open
        Print only the pre-filled link; do not open a browser.
    """
    from memesh.transports.cli.actions import insight

    return insight.feedback(
        bug=bug, feature=feature, question=question, message=message, diagnostics=not no_diagnostics, open_=not no_open
    )


def stats(*, json_: params.Switch = False) -> int:
    """Counts of the memory: memories by type and status (archived included), observations, relations, the most
    used tags, and the database file's size (SQLite).

    Parameters
    ----------
    json_
        Print the counts (GET /v1/stats's answer plus databaseBytes) as JSON.
    """
    from memesh.transports.cli.actions import insight

    return insight.stats(as_json=json_)


def open_(*, no_browser: params.Switch = False, port: params.Int = 3737, json_: params.Switch = False) -> int:
    """Open the dashboard: starts `memesh serve` in the background when no MeMesh answers on the port, then opens
    http://127.0.0.1:<port>/dashboard in the browser.

    Parameters
    ----------
    no_browser
        Print the dashboard's URL instead of opening a browser.
    port
        The local port to find or start the server on.
    json_
        Print {url, started, pid} as JSON (pid of the server started, or null); opens no browser.
    """
    from memesh.transports.cli.actions import insight

    return insight.open_dashboard(port=port, browser=not (no_browser or json_), as_json=json_)
