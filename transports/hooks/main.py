"""memesh-hook <event>: the hooks Claude Code (and Codex) run, one short process per event.

The host sends the hook's JSON on stdin and reads the answer on stdout. A hook has nothing to parse on its command
line but the event name, so there is no argument parser here, and each event imports only what it needs: this
module is the whole start-up path before that. Whatever happens, the hook exits 0 without blocking the agent, and
records one outcome per capture in hook-outcomes.jsonl.
"""

from __future__ import annotations

import sys


def main() -> None:
    """Entry point of `memesh-hook`."""
    from memesh.transports.hooks.runner import run

    sys.exit(run(sys.argv[1] if len(sys.argv) > 1 else "", sys.stdin.buffer, sys.stdout))
