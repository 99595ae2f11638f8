"""A real PgBouncer (Debian's package) in front of the suite's PostgreSQL cluster, for the pooler tests.

`pgbouncer(mode=..., pool_size=...)` starts one for the test (tools/pgbouncer.py: a temporary folder, 127.0.0.1 on a
free port, trust authentication, as the `postgres` user when run as root) and gives the URL of a fresh migrated
database through it. A missing pgbouncer skips, or fails under MEMESH_TEST_REQUIRE_POSTGRES as a missing PostgreSQL
does (tests/backends.py); a run on SQLite alone (MEMESH_TEST_BACKENDS=sqlite) skips.
"""

from __future__ import annotations

import importlib.util
import os
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests import backends

# What the issue counts: a prepared statement missing on the server connection a transaction landed on (26000) or
# already there from another client (42P05), and a statement refused inside an aborted transaction (25P02).
POOLER_SQLSTATES = frozenset({"26000", "42P05", "25P02"})


def _tools() -> Any:
    path = Path(__file__).resolve().parent.parent / "tools" / "pgbouncer.py"
    spec = importlib.util.spec_from_file_location("memesh_pgbouncer", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@dataclass
class Pooled:
    """A database of the test's own, reached directly and through a PgBouncer."""

    url: str  # through the pooler
    direct: str  # the same database on the cluster's socket
    bouncer: Any


@pytest.fixture
def pgbouncer() -> Iterator[Callable[..., Pooled]]:
    if "postgres" not in backends.engines():
        pytest.skip("PostgreSQL is not tested in this run (MEMESH_TEST_BACKENDS)")
    tools = _tools()
    binary = tools.program()
    if binary is None:
        reason = "PgBouncer is not installed (apt-get install -y pgbouncer, or run `make postgres`)"
        if os.environ.get("MEMESH_TEST_REQUIRE_POSTGRES"):
            pytest.fail(reason)
        pytest.skip(reason)
    started: list[Pooled] = []

    def start(*, mode: str = "transaction", pool_size: int = 2, migrated: bool = True) -> Pooled:
        cluster = backends.cluster()
        direct = cluster.new_database(migrated=migrated)
        bouncer = tools.PgBouncer(binary, cluster, mode=mode, pool_size=pool_size)
        started.append(Pooled(bouncer.url(direct), direct, bouncer))
        return started[-1]

    yield start
    for pooled in started:
        pooled.bouncer.stop()
        backends.cluster().drop(pooled.direct)


def sqlstate(message: str) -> str | None:
    """The SQLSTATE a store failure's message carries ("database error 26000: …"): the store maps every statement
    failure it does not know to one kind (`store: database`), so the state is what tells a pooler's apart."""
    found = re.search(r"\b(?=[0-9A-Z]*[0-9])([0-9A-Z]{5})\b", message)
    return found.group(1) if found else None
