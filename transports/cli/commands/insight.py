"""Declarations of `memesh demo` and `memesh feedback`: flags and help only; each imports its action when it runs."""

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
