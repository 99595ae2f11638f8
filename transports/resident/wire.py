"""The resident server's wire, shared by its client (`client.py`) and the server (`server.py`): the hook wire's
frames (memesh.transports.hooks.wire: length-prefixed fields, os only), a request of its own, and the commands it
may run.

Request (client → server): MAGIC, the frame's length, then the fields
  stamp        the client's install (memesh.resident.stamp: version and package time)
  kind         b"cli" or b"hook"
  folder, db   the MeMesh folder and database the client resolved (memesh.resident.served)
  cwd          the working directory
  env          the client's whole environment, NAME=value\\0 … (the server runs the command under it exactly)
  argv         the command line after `memesh` (kind cli) or the event (kind hook), NUL-separated
  stdin        the hook's stdin bytes (empty for a CLI command: no warm command reads stdin)
  io           stdout's encoding and errors, NUL-separated, then the umask and which of stdin, stdout and stderr
               are terminals (b"0"/b"1" each)
Answer (server → client): one byte, REFUSE (then a frame holding the reason: nothing ran) or ACCEPT (the server
runs it; then a frame holding the exit status byte, the stdout bytes and the stderr bytes).
"""

from __future__ import annotations

MAGIC = b"MMR1"
ACCEPT = b"A"
REFUSE = b"R"
FIELDS = 9
CLI, HOOK = b"cli", b"hook"
# A refusal that asks the client to start a new server: the one that answered belongs to another install.
UPGRADE = b"another install of MeMesh"

# The commands the server runs: the CLI's plain door calls, whose whole effect is the database, the MeMesh folder
# and what they print. Everything else stays in its own process: a command that prompts, reads stdin, opens a
# browser, starts or execs a program (setup, open, feedback, serve, doctor --fix), draws a progress line, or reads
# its own terminal; and any line the front does not read whole (help, a usage error: Cyclopts answers it, and its
# text follows the terminal's width).
WARM = frozenset(
    {
        "recall",
        "remember",
        "forget",
        "learn",
        "task",
        "pin",
        "unpin",
        "briefing",
        "why",
        "stats",
        "demo",
        "doctor",
        "export-schema",
    }
)
# Those of them that change nothing a second run would change again (recall's access count aside): when a server
# fails after taking one, the client runs it itself. A write that may have happened is never run a second time.
REPEATABLE = frozenset({"recall", "briefing", "why", "stats", "doctor", "export-schema"})
# Flags that keep a warm command in its own process: help and the version (answered by Cyclopts), and doctor's
# repairs (which may run a host's plugin updater).
COLD_FLAGS = frozenset({"--help", "-h", "--version"})
COLD_FLAGS_OF = {"doctor": frozenset({"--fix"})}

# Seconds the client waits: for the accept or refusal (the server waits at most BUSY_WAIT_S for the command before
# it; the rest is margin for a loaded machine), then for a CLI command's answer (a hook's is the hook wire's, by
# event).
ACCEPT_TIMEOUT_S = 3.0
BUSY_WAIT_S = 1.5
CLI_ANSWER_TIMEOUT_S = 120.0


def warm_line(argv: list[str]) -> bool:
    """Whether the command line `memesh <argv>` may be answered by the resident server."""
    if not argv or argv[0] not in WARM:
        return False
    cold = COLD_FLAGS | COLD_FLAGS_OF.get(argv[0], frozenset())
    return not any(token.partition("=")[0] in cold for token in argv)
