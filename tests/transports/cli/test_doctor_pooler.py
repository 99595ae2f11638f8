"""`memesh doctor` behind a real PgBouncer in transaction mode: the Database row says a pooler was told, and names
the one setting a pooled session cannot set for its reads (jit) until the database or role has it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import psycopg

from tests.pooler import Pooled

BIN = Path(sys.executable).parent


def _database_row(tmp_path: Path, url: str) -> dict[str, Any]:
    home = tmp_path / "home"
    env = {key: value for key, value in os.environ.items() if (not key.startswith("MEMESH_") or key == "MEMESH_DAEMON")}
    env.update(
        HOME=str(home),
        MEMESH_DIR=str(home / ".memesh"),
        MEMESH_DB_PATH=str(home / ".memesh" / "kg.db"),
        MEMESH_DATABASE_URL=url,
        MEMESH_UPDATE_CHECK="0",
    )  # MEMESH_DATABASE_POOLER unset: PgBouncer is told by itself
    done = subprocess.run(
        [str(BIN / "memesh"), "doctor", "--json"], env=env, cwd=tmp_path, capture_output=True, text=True, check=False
    )
    rows: list[dict[str, Any]] = [check for check in json.loads(done.stdout)["checks"] if check["id"] == "database"]
    return rows[0]


def test_doctor_says_the_database_is_reached_through_a_pooler_and_asks_for_jit_off_until_it_is(
    tmp_path: Path, pgbouncer: Callable[..., Pooled]
) -> None:
    pooled = pgbouncer()
    row = _database_row(tmp_path, pooled.url)
    assert row["status"] == "pass"
    assert "transaction-mode pooler" in row["detail"]
    assert "SET jit = off" in row["detail"]

    database = urlsplit(pooled.direct).path.lstrip("/")
    with psycopg.connect(pooled.direct, autocommit=True) as owner:
        owner.execute(f"ALTER DATABASE {database} SET jit = off")  # what the README asks of a pooled team, once
        # The pool's server connections began before the setting: PgBouncer replaces them once they are gone.
        owner.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
            "WHERE datname = current_database() AND pid <> pg_backend_pid()"
        )
    try:
        after = _database_row(tmp_path, pooled.url)
    finally:
        with psycopg.connect(pooled.direct, autocommit=True) as owner:
            owner.execute(f"ALTER DATABASE {database} RESET jit")  # the database goes back to the suite's pool
    assert "transaction-mode pooler" in after["detail"]
    assert "SET jit = off" not in after["detail"]
