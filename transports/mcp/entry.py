"""The `memesh-mcp` command before the server: --version and --help answered at once, stdlib only.

The mcp SDK takes most of a second to import, and without a client on stdin a person typing `memesh-mcp --help`
would wait on a silent JSON-RPC server. Anything else on the command line is a usage error: the server takes no
arguments (its database comes from MEMESH_DB_PATH / MEMESH_DIR, as for every other command).
"""

from __future__ import annotations

import sys

from memesh import __version__

# Not imported for the server: pathlib and collections cost more than the early front's own start (--help needs one).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

USAGE = """usage: memesh-mcp [--version] [--help]

MeMesh's MCP server over stdio: an MCP client (Claude Code, Codex, Gemini CLI, …) starts it and speaks JSON-RPC
on its stdin and stdout. Its tools keep memories in one SQLite file: MEMESH_DB_PATH, else knowledge-graph.db in
MEMESH_DIR (default ~/.memesh).

Point your client at this command by its absolute path:
  {path}
e.g. claude mcp add memesh -- {path}
"""
TERMINAL_HINT = (
    "memesh-mcp: serving MCP on stdin/stdout, for an MCP client to start; nothing to type here "
    "(Ctrl-C to stop, memesh-mcp --help for how to add it to a client)."
)


def options(argv: Sequence[str]) -> int | None:
    """The exit status once the command line is answered (--version, --help, a mistake), or None to serve."""
    if not argv:
        return None
    if list(argv) in (["--version"], ["-V"]):
        print(__version__)
        return 0
    if list(argv) in (["--help"], ["-h"]):
        from pathlib import Path

        print(USAGE.format(path=Path(sys.argv[0]).absolute()), end="")
        return 0
    print(f"memesh-mcp: unexpected argument {argv[0]!r}; it takes only --version or --help.", file=sys.stderr)
    return 2


def main() -> None:
    """Entry point of `memesh-mcp`."""
    status = options(sys.argv[1:])
    if status is not None:
        sys.exit(status)
    if sys.stdin.isatty():
        print(TERMINAL_HINT, file=sys.stderr)
    from memesh.transports.mcp import early  # the standard library only: the opening is answered while mcp loads

    early.main()
