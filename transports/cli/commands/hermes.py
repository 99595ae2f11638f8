"""Declaration of `memesh hermes capture-session|capture-turn|recall` (the work: actions/hermes.py).

The Hermes Agent memory plugin's way in, called by the plugin and not typed by a person: one JSON object on stdin
(never on the command line, where every local process can read it), one JSON line on stdout. Bad input exits 1
with a message on stderr and stores nothing.
"""

from __future__ import annotations

from cyclopts import App

hermes = App(name="hermes", help="The Hermes Agent memory plugin's commands (JSON on stdin, one JSON line out).")


@hermes.command(name="capture-session")
def capture_session(*, session: str | None = None) -> int:
    """Store a session's insights (files edited, errors fixed, a heavy session's commands) from
    `{"messages": [...]}`, an OpenAI-format message list, on stdin.

    Parameters
    ----------
    session
        Hermes session id: 1-128 letters, digits, '.', '_', ':' or '-'.
    """
    from memesh.transports.cli.actions import hermes as actions

    return actions.capture_session(session)


@hermes.command(name="capture-turn")
def capture_turn(*, session: str | None = None) -> int:
    """Store `{"user": …, "assistant": …}` from stdin when the reply states a decision or a lesson.

    Parameters
    ----------
    session
        Hermes session id: 1-128 letters, digits, '.', '_', ':' or '-'.
    """
    from memesh.transports.cli.actions import hermes as actions

    return actions.capture_turn(session)


@hermes.command
def recall(*, session: str | None = None) -> int:
    """Recall for `{"query": …, "limit": n}` on stdin; answers `{"context": "[MeMesh recall]…", "count": n}`.

    Parameters
    ----------
    session
        Hermes session id: 1-128 letters, digits, '.', '_', ':' or '-'.
    """
    from memesh.transports.cli.actions import hermes as actions

    return actions.recall(session)
