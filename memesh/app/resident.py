"""What the resident server (memesh.transports.resident) needs of the application: everything a request runs
imported and read before the first request, the PostgreSQL connections kept between requests, and the state a
short process would have started afresh cleared before each one."""

from __future__ import annotations

import contextlib
import importlib

# The modules a warm command or hook reaches on first use: imported once, before the socket is bound.
_WARM_MODULES = (
    "memesh.app.dispatch",
    "memesh.app.registry",
    "memesh.app.resources",
    "memesh.store.open",
    "memesh.store.sqlite",
    "memesh.adapters.author",
)


def prepare() -> None:
    """Import the door, the hook operations and what they use, read the hook schemas, keep PostgreSQL connections
    open between requests, and load the hybrid model when the configured recall mode uses it."""
    from memesh.app.operations import hooks
    from memesh.store import postgres_open

    for name in _WARM_MODULES:
        importlib.import_module(name)
    hooks.preload()
    postgres_open.keep_connections()
    from memesh.app.resources import Resources

    resources = Resources()
    # The model is loaded once (memesh.adapters.embedding.load is cached) in hybrid mode; one that will not load is
    # the first hybrid request's to report, as in its own process.
    with contextlib.suppress(Exception):
        resources.semantic()


def fresh_request() -> None:
    """Forget what a process caches for its whole life but a request may see differently: the local author (git's
    user.email in the request's folder and HOME, its MEMESH_AUTHOR, its config.json)."""
    from memesh.adapters import author

    author.local_author.cache_clear()


def close() -> None:
    """Close the kept PostgreSQL connections (the server exits)."""
    from memesh.store import postgres_open

    postgres_open.close_kept()
