"""Command declarations (flags and help only); each imports its action when it runs.

`DECLARED` is the one list of commands, in the order `memesh --help` shows them: the name typed → where its
declaration is. Cyclopts' tree (tree.py) registers each from here without importing it, so only the command that
runs is imported; the front (front.py) runs the commands of `WITHOUT_CYCLOPTS`, whose modules import no Cyclopts,
from the same declarations.
"""

from __future__ import annotations

_HERE = "memesh.transports.cli.commands"

DECLARED: dict[str, str] = {
    "remember": f"{_HERE}.memory:remember",
    "recall": f"{_HERE}.memory:recall",
    "forget": f"{_HERE}.memory:forget",
    "learn": f"{_HERE}.memory:learn",
    "task": f"{_HERE}.memory:task",
    "pin": f"{_HERE}.memory:pin",
    "unpin": f"{_HERE}.memory:unpin",
    # Backup, restore and upkeep.
    "export": f"{_HERE}.data:export",
    "import": f"{_HERE}.data:import_",
    "reindex": f"{_HERE}.data:reindex",
    "config": f"{_HERE}.config:config",
    "delegation": f"{_HERE}.delegation:delegation",
    "hermes": f"{_HERE}.hermes:hermes",
    "message": f"{_HERE}.message:message",
    "dream": f"{_HERE}.dream:dream",
    "kg": f"{_HERE}.kg:kg",
    "db": f"{_HERE}.db:db",
    "member": f"{_HERE}.member:member",
    "demo": f"{_HERE}.insight:demo",
    "feedback": f"{_HERE}.insight:feedback",
    "stats": f"{_HERE}.insight:stats",
    "open": f"{_HERE}.insight:open_",
    "call": f"{_HERE}.tools:call_",
    "briefing": f"{_HERE}.session:briefing",
    "setup": f"{_HERE}.session:setup",
    "why": f"{_HERE}.session:why",
    "doctor": f"{_HERE}.session:doctor",
    "export-schema": f"{_HERE}.memory:export_schema",
    "serve": f"{_HERE}.tools:serve",
    "consolidate": f"{_HERE}.tools:consolidate",
}

# Listed nowhere (`memesh --help` leaves them out); typed, they still run.
HIDDEN = frozenset({"consolidate"})

# The commands whose declaring module imports no Cyclopts (tests/transports/cli/test_startup.py proves it).
WITHOUT_CYCLOPTS = frozenset(
    {
        "remember",
        "recall",
        "forget",
        "learn",
        "task",
        "pin",
        "unpin",
        "demo",
        "feedback",
        "stats",
        "open",
        "briefing",
        "setup",
        "why",
        "doctor",
        "export-schema",
    }
)
