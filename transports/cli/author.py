"""`--author` on the commands that write what a person typed (`remember`, `learn`, `task`, `import`): who the write
is recorded as for this one call, over MEMESH_AUTHOR and config.json's `author` (issue 32). The name is held to
the setting's own rule (`memesh.core.authors`): one line, printable, at most 128 characters; blank is refused."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from memesh.core.authors import author_problem, shown_author

_CHOSEN: ContextVar[str | None] = ContextVar("memesh_cli_author", default=None)


class AuthorRefused(ValueError):
    """The --author a person typed cannot name an author; the message says why."""


@contextmanager
def author_option(author: str | None) -> Iterator[None]:
    """The command's author: `author` while the block runs; the setting's when None. AuthorRefused when blank or
    too long."""
    if author is None:
        yield
        return
    problem = author_problem(author)
    if problem is not None:
        raise AuthorRefused(problem)
    token = _CHOSEN.set(shown_author(author))
    try:
        yield
    finally:
        _CHOSEN.reset(token)


def chosen_author() -> str | None:
    """The --author of the command that runs, or None (the local author setting applies)."""
    return _CHOSEN.get()


def as_author(author: str | None, run: Callable[[], int]) -> int:
    """`run()` with `author` as the command's author; exit 2 (a refused command line) when it names no one."""
    from memesh.transports.cli.exits import usage

    try:
        with author_option(author):
            return run()
    except AuthorRefused as refused:
        return usage(str(refused))
