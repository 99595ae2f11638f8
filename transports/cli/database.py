"""`--database` on the commands that use one database for their whole run (`memesh serve`, `export`, `import`): the
database given on the command line instead of the configured one, for as long as the command runs.

A postgresql:// URL is set as MEMESH_DATABASE_URL (the local files stay in the folder they would be in without it);
anything else is a SQLite file's path, set as MEMESH_DB_PATH with any URL in the environment put aside. Both are
restored when the command ends, so a command run in-process (tests) leaves the environment as it found it.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from memesh.paths import URL_SCHEMES

_NAMES = ("MEMESH_DATABASE_URL", "MEMESH_DB_PATH")


@contextmanager
def database_option(database: str | None) -> Iterator[None]:
    """The command's database: `database` (a URL or a file's path) while the block runs; unchanged when None."""
    if database is None:
        yield
        return
    before = {name: os.environ.get(name) for name in _NAMES}
    if database.strip().startswith(URL_SCHEMES):
        os.environ["MEMESH_DATABASE_URL"] = database.strip()
    else:
        os.environ.pop("MEMESH_DATABASE_URL", None)
        os.environ["MEMESH_DB_PATH"] = str(Path(database).expanduser().absolute())
    try:
        yield
    finally:
        for name, value in before.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
