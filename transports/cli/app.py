"""The `memesh` command line: flags in, one tool call through dispatch, text or `--json` out, an exit status.

Start-up time is part of the contract, so this module imports almost nothing. A command line the front can read
whole (front.py: the commands declared without Cyclopts, with flags it knows) runs with no Cyclopts imported;
every other one, help and --version included, goes to the Cyclopts tree (tree.py), which imports only the command
that runs. Either way the same declaration (commands/) is called. Exit statuses: 0 success, 1 any failure a tool or
the store reports (table in exits.py), 2 a command line that could not be read.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from contextvars import ContextVar

from memesh.transports.cli.exits import FAILED
from memesh.transports.cli.terminal import terminal_safe

INTERRUPTED = "Interrupted (Ctrl-C): nothing is half-written (a change in progress was rolled back)."
_ARGV: ContextVar[tuple[str, ...]] = ContextVar("argv", default=())  # the command line `run` is parsing


def after_end_of_options(text: str) -> bool:
    """Whether `text` was given after `--` on the command line, where nothing is a flag."""
    argv = list(_ARGV.get())
    return "--" in argv and text in argv[argv.index("--") + 1 :]


def run(argv: Sequence[str]) -> int:
    """Run one command line in this process; its exit status (usage errors 2, never a parser exit). Everything it
    prints is terminal-safe (`cli.terminal`), except help and --version, which print nothing from the database and
    whose colours are escape sequences."""
    _ARGV.set(tuple(argv))
    if any(token in HELP_FLAGS for token in argv):
        return _tree(argv)
    with terminal_safe():
        from memesh.transports.cli import front

        command = front.read(argv)
        if command is not None:
            return command.run()
        return _tree(argv)


HELP_FLAGS = frozenset({"--help", "-h", "--version"})


def _tree(argv: Sequence[str]) -> int:
    import gc

    gc.enable()  # off only for the front's short commands (`entry`); the tree runs long ones too (serve)
    from memesh.transports.cli import tree

    return tree.run(argv)


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


def entry() -> None:
    """The `memesh` console script: `main`, with the garbage collector off for a command the front runs (a short one:
    its imports make tens of thousands of objects and no garbage worth a pass) and no interpreter teardown after it
    (memesh.quick_exit). A command Cyclopts runs (`serve` among them) gets the collector back (`_tree`)."""
    import gc

    gc.disable()
    code = main()
    from memesh import quick_exit

    quick_exit.leave(code)


if __name__ == "__main__":
    sys.exit(main())
