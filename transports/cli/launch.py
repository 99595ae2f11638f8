"""The `memesh` console script. A command the resident server may run (memesh.transports.resident) is handed to it
first, importing nothing but its client; anything else, or when no server answers, runs here (`app.main`), and a
command that found no server starts one for the next call (docs/adr/0008-whole-process-speed.md)."""

import sys


def entry() -> None:
    """`memesh`: the garbage collector off (a short command's imports make tens of thousands of objects and no
    garbage worth a pass; a command Cyclopts runs turns it back on, `app._tree`), the resident server asked first,
    and no interpreter teardown at the end (memesh.quick_exit)."""
    import gc

    gc.disable()
    argv = sys.argv[1:]
    from memesh.transports.resident import wire

    start = 0
    if wire.warm_line(argv):
        from memesh.transports.resident import client

        start = client.cli(argv)  # returns only when the command runs here: NOT_TAKEN, START or REPLACE
    from memesh import quick_exit
    from memesh.transports.cli import app

    code = app.main(argv)
    if start:
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        except (OSError, ValueError):
            pass
        from memesh.transports.resident import client

        client.start(replacing=start == client.REPLACE)
    quick_exit.leave(code)
