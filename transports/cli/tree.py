"""The whole `memesh` command tree as one Cyclopts app: every command line the front (front.py) does not run, help
and --version included. Each command is registered from where it is declared (`commands.DECLARED`) without being
imported: Cyclopts imports only the command that runs, and `memesh --help` all of them.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from importlib import import_module
from pathlib import Path

from cyclopts import App
from cyclopts.exceptions import CycloptsError, MissingArgumentError, UnusedCliTokensError

from memesh import __version__
from memesh.transports.cli.commands import DECLARED, HIDDEN
from memesh.transports.cli.exits import OK, usage

# MCP client configs want the server's absolute path: it sits beside this interpreter (a venv's or pipx's bin/).
MCP_SERVER = Path(sys.executable).parent / "memesh-mcp"


def build(*, lazy: bool) -> App:
    """The app. `lazy`: each command registered by where it is declared, imported only if it runs. Otherwise each
    imported now, for what needs the whole tree: `memesh --help` lists every command with its summary (a lazy
    command has none until imported), and an unknown command is told the nearest names."""
    app = App(
        name="memesh",
        help="MeMesh: local-first memory for AI coding agents (one SQLite file).",
        help_epilogue=f"MCP server for your agent's config: {MCP_SERVER}",
        version=__version__,
        version_flags=["--version", "-V"],
        suppress_keyboard_interrupt=False,  # main() says what Ctrl-C left behind, then exits 130
    )
    for name, where in DECLARED.items():
        show = name not in HIDDEN
        if lazy:
            app.command(where, name=name, show=show)
            continue
        module, _, attribute = where.partition(":")
        declaration = getattr(import_module(module), attribute)
        if isinstance(declaration, App):  # a group of commands (config, message, …), named by itself
            app.command(declaration)
        else:
            app.command(declaration, name=name, show=show)
    return app


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
    """`argv` parsed and run by Cyclopts; its exit status (usage errors 2, never a parser exit)."""
    app = build(lazy=bool(argv) and argv[0] in DECLARED)
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
