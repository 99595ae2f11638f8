"""Declarations of `memesh briefing` (and, below it, what brings memory to an agent on its own): flags and help only.

Registered on the app by app.py; each imports its implementation (actions/session.py) when it runs.
"""

from __future__ import annotations

from memesh.transports.cli import params


def briefing(
    *,
    project: str | None = None,
    recipient: str | None = None,
    index: params.Switch = False,
    json_: params.Switch = False,
) -> int:
    """Print the project's briefing at the configured level (what SessionStart injects), or its memory index.

    Parameters
    ----------
    project
        The project (default: this directory's project).
    recipient
        Also report this exact recipient's unread messages for the project.
    index
        Print only the durable-memory index, whatever the level.
    json_
        Print the result as JSON.
    """
    from memesh.transports.cli.actions import session

    return session.briefing(project=project, recipient=recipient, index_only=index, as_json=json_)


def setup(
    *,
    host: str = "claude-code",
    user: params.Switch = False,
    trust: params.Switch = False,
    uninstall: params.Switch = False,
    yes: params.Switch = False,
    json_: params.Switch = False,
) -> int:
    """Install MeMesh's hooks into Claude Code's ~/.claude/settings.json (for a pip/pipx install without the plugin),
    or with --host into GitHub Copilot CLI's or Cursor's hooks and MCP files.

    Your other settings are kept byte for byte; running it again changes nothing. Asks first ([y/N]) unless --yes.

    Parameters
    ----------
    host
        claude-code (default), copilot-cli (this repository's .github/hooks/memesh.json and mcp-config.json in
        Copilot CLI's config folder, $COPILOT_HOME or ~/.copilot) or cursor (this repository's .cursor/hooks.json and
        .cursor/mcp.json).
    user
        With --host cursor: write ~/.cursor/hooks.json and ~/.cursor/mcp.json (every project) instead.
    trust
        With --host copilot-cli: also add this repository to Copilot CLI's trusted folders (its config.json), where
        alone it loads the repository's hooks; it may then read and run files here without asking.
    uninstall
        Remove MeMesh's hooks instead (other hooks stay).
    yes
        Do not ask for confirmation.
    json_
        Print the result as JSON.
    """
    from memesh.transports.cli.actions import session

    return session.setup(host=host, user=user, trust=trust, uninstall=uninstall, yes=yes, as_json=json_)


def why(
    file: str,
    /,
    *,
    line: params.OptionalInt = None,
    limit: params.Int = 10,
    json_: params.Switch = False,
) -> int:
    """Which commits touched a file, and what memesh remembers about them (run it inside the repository).

    Parameters
    ----------
    file
        The file, relative to the working directory.
    line
        Attribute this one line (git blame) instead of the file's history.
    limit
        At most this many commits (default 10, at most 50).
    json_
        Print the full result as JSON (the shape of POST /v1/why).
    """
    from memesh.transports.cli.actions import session

    return session.why(file, line=line, limit=limit, as_json=json_)


def doctor(*, fix: str | None = None, json_: params.Switch = False) -> int:
    """Check the install, the database, the hook wiring and whether automatic capture is alive; exit 1 on FAIL.

    Parameters
    ----------
    fix
        Apply the repair of the check with this id (one doctor lists as fixable: config, plugin-cache-<host>,
        mcp-connection-claude-code), after running doctor again; the shape of POST /v1/doctor/fix.
    json_
        Print the full result as JSON (the shape of GET /v1/doctor).
    """
    from memesh.transports.cli.actions import session

    if fix is not None:
        return session.doctor_fix(fix, as_json=json_)
    return session.doctor(as_json=json_)
