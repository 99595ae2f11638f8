"""memesh-hook <event>: the hooks Claude Code (and Codex) run, one short process per event.

The host sends the hook's JSON on stdin and reads the answer on stdout. A hook has nothing to parse on its command
line but the event name, so there is no argument parser here. When a memesh-mcp of the same database is running
(Claude Code keeps one for the whole session), this process only hands the event, its stdin, working directory and
MeMesh environment variables to it over an owner-only Unix socket and writes back the answer (`client.py`); the
server runs the same runner, gate and operations (docs/adr/0002-hook-startup.md). Otherwise the hook runs here, and
each event imports only what it needs. Whatever happens, the hook exits 0 without blocking the agent, touches its
event's heartbeat first and records one outcome per capture in hook-outcomes.jsonl.
"""

from __future__ import annotations  # free: memesh/__init__.py imported it already

import sys

TYPE_CHECKING = False  # not typing's: a hook's warm path imports nothing it does not need
if TYPE_CHECKING:
    from typing import IO


def main() -> None:
    """Entry point of `memesh-hook`: the garbage collector stays off (a hook is one short event: its imports make
    tens of thousands of objects and no garbage worth a pass) and the process ends without the interpreter's
    teardown once its answer is out (memesh.quick_exit, issue 36)."""
    import gc

    gc.disable()
    import os

    from memesh import quick_exit
    from memesh.transports.hooks import client, wire

    event = sys.argv[1] if len(sys.argv) > 1 else ""
    wire.beat(os.environ, event)
    try:
        data = sys.stdin.buffer.read(wire.MAX_STDIN + 1)
    except OSError:
        data = b""
    answered = client.delegate(event, data)
    start = 0
    if answered is None and event in wire.ANSWER_TIMEOUT_S:  # no memesh-mcp took it: the resident server, if any
        from memesh.transports.resident import client as resident

        found = resident.ask(b"hook", [event], data, wire.ANSWER_TIMEOUT_S[event])
        if isinstance(found, tuple):
            status, output, errors = found
            _write(sys.stderr, errors)
            answered = status, output
        elif isinstance(found, str):
            answered = found
        else:
            start = found
    if isinstance(answered, tuple):
        status, output = answered
        _write(sys.stdout, output)
        quick_exit.leave(status)
    from memesh.transports.hooks import runner

    if answered is not None:  # the server took the hook and failed: running it again here could write twice
        runner.record_failure(event, answered)
        quick_exit.leave(0)
    status = runner.run(event, data, sys.stdout, runner.HookCall.here())
    if start:  # no server answered: one starts for the next hook (unless turned off), once this answer is out
        _write(sys.stdout, b"")
        from memesh.transports.resident import client as resident

        resident.start(replacing=start == resident.REPLACE)
    quick_exit.leave(status)


def _write(stream: IO[str], data: bytes) -> None:
    try:
        if data:
            stream.buffer.write(data)  # type: ignore[attr-defined]
        stream.flush()
    except (OSError, ValueError):
        pass
