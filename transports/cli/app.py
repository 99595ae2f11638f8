"""The `memesh` command line: flags in, one tool call through dispatch, text or `--json` out, an exit status.

Start-up time is part of the contract (`memesh recall x --json` answers in well under 0.2 s), so this module
imports only Cyclopts and what the exit statuses need; each command imports its implementation when it runs, and
`serve` imports the HTTP stack only then. Exit statuses: 0 success, 1 any failure a tool or the store reports
(table in exits.py), 2 a command line that could not be read.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Sequence
from contextvars import ContextVar
from pathlib import Path
from typing import Annotated

from cyclopts import App, Parameter
from cyclopts.exceptions import CycloptsError, MissingArgumentError, UnusedCliTokensError

from memesh import __version__
from memesh.transports.cli.commands import config as config_commands
from memesh.transports.cli.commands import data, delegation, hermes, insight, session
from memesh.transports.cli.commands import message as message_commands
from memesh.transports.cli.commands.db import db
from memesh.transports.cli.commands.dream import dream
from memesh.transports.cli.commands.kg import kg
from memesh.transports.cli.exits import FAILED, OK, usage
from memesh.transports.cli.params import Int, Many, OptionalInt, Switch, Text
from memesh.transports.cli.terminal import terminal_safe

INTERRUPTED = "Interrupted (Ctrl-C): nothing is half-written (a change in progress was rolled back)."
_ARGV: ContextVar[tuple[str, ...]] = ContextVar("argv", default=())  # the command line `run` is parsing
FLAG_SHAPED = re.compile(r"--?[A-Za-z][\w-]*(=.*)?")  # `--bogus`, `-x`: a mistyped flag, not text

# MCP client configs want the server's absolute path: it sits beside this interpreter (a venv's or pipx's bin/).
MCP_SERVER = Path(sys.executable).parent / "memesh-mcp"

app = App(
    name="memesh",
    help="MeMesh: local-first memory for AI coding agents (one SQLite file).",
    help_epilogue=f"MCP server for your agent's config: {MCP_SERVER}",
    version=__version__,
    version_flags=["--version", "-V"],
    suppress_keyboard_interrupt=False,  # main() says what Ctrl-C left behind, then exits 130
)


@app.command
def remember(
    text: Text = None,
    /,
    *,
    name: str | None = None,
    type_: str | None = None,
    title: str | None = None,
    obs: Many = None,
    tags: Many = None,
    namespace: str | None = None,
    supersedes: Many = None,
    contradicts: Many = None,
    replace: Switch = False,
    json_: Switch = False,
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
    json_
        Print the result as JSON.
    """
    from memesh.transports.cli.actions import memory

    if text is not None and FLAG_SHAPED.fullmatch(text) and not _after_end_of_options(text):
        return usage(f"Unknown option: {text}. Text that starts with a hyphen and reads like a flag goes after --.")
    return memory.remember(
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
    )


@app.command
def recall(
    *query: str,
    tag: str | None = None,
    limit: OptionalInt = None,
    include_archived: Switch = False,
    namespace: str | None = None,
    cross_project: Switch = False,
    json_: Switch = False,
) -> int:
    """Search memories by keyword; without a query, list the recent ones.

    Parameters
    ----------
    query
        Search terms (quoted or not: `memesh recall auth flow` searches for both words).
    tag
        Only memories with this tag, e.g. project:NAME.
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
        limit=limit,
        include_archived=include_archived,
        namespace=namespace,
        cross_project=cross_project,
        as_json=json_,
    )


@app.command
def forget(*, name: str, observation: str | None = None, json_: Switch = False) -> int:
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


@app.command
def learn(
    *,
    error: str,
    fix: str,
    root_cause: str | None = None,
    prevention: str | None = None,
    severity: str | None = None,
    project: str | None = None,
    json_: Switch = False,
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
    json_
        Print the result as JSON.
    """
    from memesh.transports.cli.actions import memory

    return memory.learn(
        error=error,
        fix=fix,
        root_cause=root_cause,
        prevention=prevention,
        severity=severity,
        project=project,
        as_json=json_,
    )


@app.command
def task(
    *,
    project: str | None = None,
    goal: str | None = None,
    next_: str | None = None,
    blocked: str | None = None,
    done: str | None = None,
    json_: Switch = False,
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
    json_
        Print the result as JSON.
    """
    from memesh.transports.cli.actions import memory

    return memory.task(project=project, goal=goal, next_step=next_, blocked=blocked, done=done, as_json=json_)


@app.command
def pin(*, name: str, json_: Switch = False) -> int:
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


@app.command
def unpin(*, name: str, json_: Switch = False) -> int:
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


# Backup, restore and upkeep commands are declared in their own modules (as cheap to import as this one).
app.command(data.export)
app.command(data.import_, name="import")
app.command(data.reindex)
app.command(config_commands.config)
app.command(delegation.delegation)
app.command(hermes.hermes)
app.command(message_commands.message)
app.command(dream)
app.command(kg)
app.command(db)
app.command(insight.demo)
app.command(insight.feedback)


@app.command(name="call")
def call_(tool: str, arguments: Annotated[str, Parameter(allow_leading_hyphen=True)] = "-", /) -> int:
    """Call any tool with its JSON arguments, as an MCP client would; print its JSON answer (exit 1 on a refusal,
    with the failure body on stdout).

    Parameters
    ----------
    tool
        The tool's name, as MCP lists it (remember, recall, …).
    arguments
        A JSON object of arguments, or - (the default) to read it from standard input.
    """
    from memesh.transports.cli.actions import memory

    return memory.call_json(tool, arguments)


app.command(session.briefing)
app.command(session.setup)
app.command(session.why)
app.command(session.doctor)


@app.command(name="export-schema")
def export_schema(*, format_: str = "openai") -> int:
    """Print every tool as an OpenAI function-calling definition (a JSON array).

    Parameters
    ----------
    format_
        Output format; only openai.
    """
    from memesh.transports.cli.actions import memory

    return memory.export_schema(format_)


@app.command
def serve(
    *, host: str = "127.0.0.1", port: Int = 3737, allow_remote: Switch = False, database: str | None = None
) -> int:
    """Serve the HTTP API, the dashboard and MCP at /mcp (default http://127.0.0.1:3737).

    Parameters
    ----------
    host
        Address to bind; anything but loopback also needs --allow-remote.
    port
        Port to listen on.
    allow_remote
        Allow a non-loopback bind.
    database
        The database to use instead of the configured one: a SQLite file's path or a postgresql:// URL.
    """
    from memesh.transports.cli.database import database_option
    from memesh.transports.http.serve import serve as run_server

    with database_option(database):
        return run_server(host=host, port=port, allow_remote=allow_remote)


CONSOLIDATE_RETIRED = (
    "memesh consolidate is retired. It replaced a memory's observations with an LLM summary at once, with no review "
    "and nothing to restore from. Use the MCP work_package tool from an already-running agent session: it stages one "
    "proposal, which you review with `memesh dream list`, `memesh dream show <id>`, then `memesh dream accept <id>` "
    "or `memesh dream reject <id>` (or GET /v1/dream/proposals and the dashboard)."
)


@app.command(show=False)
def consolidate(*_ignored: Annotated[str, Parameter(allow_leading_hyphen=True)]) -> int:
    """Retired: says where to go instead, and exits 1 whatever it was given."""
    print(f"Error: {CONSOLIDATE_RETIRED}", file=sys.stderr)
    return FAILED


def _after_end_of_options(text: str) -> bool:
    """Whether `text` was given after `--` on the command line, where nothing is a flag."""
    argv = list(_ARGV.get())
    return "--" in argv and text in argv[argv.index("--") + 1 :]


def _missing(exc: MissingArgumentError, argv: Sequence[str]) -> str:
    """A required flag that was left out, or given no value; with the stray value it was perhaps meant for."""
    flag = exc.argument.name if exc.argument is not None else ""
    if not flag:
        return str(exc).strip()
    if flag in argv:
        return f"{flag} needs a value."
    import shlex  # only for this message: not on every command's start-up

    stray = [str(token) for token in getattr(exc, "unused_tokens", None) or []]
    hint = f" (to give it {stray[0]!r}, write {flag} {shlex.quote(stray[0])})" if stray else ""
    return f"{flag} is required{hint}."


def run(argv: Sequence[str]) -> int:
    """Run one command line in this process; its exit status (usage errors 2, never a parser exit). Everything it
    prints is terminal-safe (`cli.terminal`), except help and --version, which print nothing from the database and
    whose colours are escape sequences."""
    _ARGV.set(tuple(argv))
    if any(token in HELP_FLAGS for token in argv):
        return _run(argv)
    with terminal_safe():
        return _run(argv)


HELP_FLAGS = frozenset({"--help", "-h", "--version"})


def _run(argv: Sequence[str]) -> int:
    try:
        result = app(list(argv), result_action="return_value", exit_on_error=False, print_error=False)
    except MissingArgumentError as exc:
        return usage(_missing(exc, argv))
    except UnusedCliTokensError as exc:
        unused = " ".join(repr(str(token)) for token in exc.unused_tokens or [])
        return usage(f"unexpected argument {unused}: quote text that has spaces in it, or give it to its flag.")
    except CycloptsError as exc:
        return usage(str(exc).strip())
    # Help and --version return None.
    return result if isinstance(result, int) else OK


def main(argv: Sequence[str] | None = None) -> int:
    """The `memesh` console script: `run`, with unexpected failures reported in one line, never a traceback."""
    try:
        return run(sys.argv[1:] if argv is None else argv)
    except KeyboardInterrupt:
        # Every write is one transaction, rolled back when interrupted: say so, on a line of its own.
        start = "\r\x1b[K" if sys.stderr.isatty() else ""
        print(f"{start}{INTERRUPTED}", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return FAILED  # the reader went away (`memesh recall | head`); there is no one left to tell
    except Exception as exc:
        print(f"Error: memesh failed unexpectedly ({type(exc).__name__}).", file=sys.stderr)
        return FAILED


if __name__ == "__main__":
    sys.exit(main())
