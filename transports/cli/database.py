"""`--database` on the commands that use one database for their whole run (`memesh serve`, `export`, `import`): the
database given on the command line instead of the configured one, for as long as the command runs.

It is part of the command's settings (`memesh.settings.Settings`, read once): a postgresql:// URL chooses that
database (the local files stay in the folder they would be in without it); anything else is a SQLite file's path.
The settings are handed to the command's resources (`cli_resources`); nothing is written into the environment.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

TYPE_CHECKING = False
if TYPE_CHECKING:
    from memesh.settings import Settings

_CHOSEN: ContextVar[Settings | None] = ContextVar("memesh_cli_settings", default=None)


def database_settings(database: str | None) -> Settings | None:
    """This process's settings with `database` (a URL or a file's path) as the database; None when not given (the
    resources then read the configured settings on first use)."""
    if database is None:
        return None
    from memesh.settings import Settings

    return Settings.load(os.environ, database=database)


@contextmanager
def database_option(database: str | None) -> Iterator[Settings | None]:
    """The command's database: `database` (a URL or a file's path) while the block runs, as the settings it yields;
    unchanged when None."""
    settings = database_settings(database)
    if settings is None:
        yield None
        return
    token = _CHOSEN.set(settings)
    try:
        yield settings
    finally:
        _CHOSEN.reset(token)


def chosen_settings() -> Settings | None:
    """The settings of the command that runs when it was given --database, else None."""
    return _CHOSEN.get()
