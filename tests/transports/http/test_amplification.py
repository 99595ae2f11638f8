"""No request grows the database (file and WAL together) by more than AMPLIFICATION times its own size, plus a
fixed allowance for SQLite's page granularity.

The WAL is checkpointed (and truncated) before each request, so what it holds afterwards is that request's own
pages: a WAL that has not been checkpointed yet keeps the frames of earlier requests too (up to SQLite's
auto-checkpoint window, 1000 pages), which says nothing about this one.

The bodies are the hostile shapes: an envelope whose `exported_at` is large (import once copied it into every row),
many tiny entities, tags, observations and relations, where per-row overhead is largest.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from tests.transports.http.conftest import Api

# Measured worst case is about 10x (5,000 one-letter entities: each row's metadata, keys, index entries and keyword
# index row, written to the file and to the WAL); 16 leaves room without letting a copy-per-row through.
AMPLIFICATION = 16
PAGE_ALLOWANCE = 256 * 1024


def _import(entities: list[dict[str, Any]], **envelope: Any) -> tuple[str, dict[str, Any]]:
    return "/v1/import", {"data": {**envelope, "entities": entities}, "merge_strategy": "skip"}


BODIES = {
    "large-envelope": _import(
        [{"name": f"e{i}", "type": "t"} for i in range(1000)], version="3.1.0", exported_at="x" * 200_000
    ),
    "tiny-entities": _import([{"name": f"e{i}", "type": "t"} for i in range(3000)]),
    "many-tags": _import([{"name": f"g{i}", "type": "t", "tags": [str(j) for j in range(250)]} for i in range(20)]),
    "many-observations": _import(
        [{"name": f"o{i}", "type": "t", "observations": [str(j) for j in range(1000)]} for i in range(10)]
    ),
    "many-relations": _import(
        [
            {"name": f"r{i}", "type": "t", "relations": [{"to": f"r{j}", "type": "x"} for j in range(60)]}
            for i in range(60)
        ]
    ),
    "remember-lists": (
        "/v1/remember",
        {
            "name": "lists",
            "type": "lesson_learned",
            "tags": [str(i) for i in range(50)],
            "observations": [str(i) for i in range(100)],
        },
    ),
}


def _checkpoint(db_file: Path) -> None:
    conn = sqlite3.connect(db_file)
    try:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        conn.close()


def _size(db_file: Path) -> int:
    return sum(p.stat().st_size for p in db_file.parent.iterdir() if p.name.startswith(db_file.name))


@pytest.mark.sqlite_only  # measures the SQLite file's growth
@pytest.mark.parametrize("shape", sorted(BODIES))
def test_a_request_grows_the_database_by_a_bounded_factor_of_its_size(api: Api, db_file: Path, shape: str) -> None:
    api.ok("POST", "/v1/remember", json={"name": "seed", "type": "t"})
    route, body = BODIES[shape]
    raw = json.dumps(body).encode()
    _checkpoint(db_file)
    before = _size(db_file)
    api.ok("POST", route, content=raw, headers={"content-type": "application/json"})
    grown = _size(db_file) - before
    assert grown <= AMPLIFICATION * len(raw) + PAGE_ALLOWANCE, (grown, len(raw), grown / len(raw))


def test_nothing_of_the_bundle_envelope_is_stored(api: Api) -> None:
    envelope = {"version": "3.1.0-envelope-marker", "exported_at": "2026-01-01T00:00:00.000Z-envelope-marker"}
    api.ok(
        "POST",
        "/v1/import",
        json={"data": {**envelope, "entities": [{"name": "a", "type": "t"}]}, "merge_strategy": "skip"},
    )
    stored = api.ok("GET", "/v1/entities/a")
    assert "envelope-marker" not in json.dumps(stored)
