"""How a short process ends (a CLI command, a hook): its output flushed, its exit handlers run, then `os._exit`,
without the interpreter's teardown.

Issue 36 counted where a CLI recall's instructions go: the interpreter's shutdown was 7.2 % of them and the garbage
collector's pass over every module's objects at exit another 22.5 M, for objects the operating system reclaims with
the process anyway. What teardown does that matters is done here first: stdout and stderr are flushed, and the
`atexit` handlers run (logging's flush, anything a command registered). The store is already closed by then (every
command and hook closes its resources when its call returns: SQLite checkpoints its WAL at the last close, a
PostgreSQL connection says goodbye). Where that cannot be known to be all, the interpreter's own exit runs instead:
when a flush fails (it reports that as it always has) and while a non-daemon thread is alive (the interpreter would
wait for it).

Standard library only, and little of it: a hook's warm path ends here too.
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False  # not typing's: a hook's warm path imports nothing it does not need
if TYPE_CHECKING:
    from typing import NoReturn


def _other_threads() -> bool:
    """Whether a thread the interpreter would wait for at exit is alive."""
    threading = sys.modules.get("threading")
    if threading is None:  # no threading.Thread was ever made: nothing to wait for
        return False
    main = threading.main_thread()
    return any(t is not main and t.is_alive() and not t.daemon for t in threading.enumerate())


def leave(code: int) -> NoReturn:
    """End the process with `code` once its output is out (see the module's docstring)."""
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (OSError, ValueError):
        sys.exit(code)  # a reader gone or a stream closed: the interpreter reports it as it always has
    if _other_threads():
        sys.exit(code)
    import atexit

    atexit._run_exitfuncs()
    try:
        sys.stdout.flush()  # what an exit handler printed
        sys.stderr.flush()
    except (OSError, ValueError):
        pass
    os._exit(code)
