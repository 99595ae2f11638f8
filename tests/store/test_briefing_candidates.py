"""The briefing's project candidates read without a LIMIT on SQLite (the first rows of the whole sort, issue 22) are
the very rows, in the very order, the query with its LIMIT returned, on both engines, over a store of thousands."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from pathlib import Path

import pytest

from memesh.store import briefing as candidates
from memesh.store.open import Store
from memesh.values import CandidateRow
from tests.backends import Backend

PROJECT = "project:proj~0123456789abcdef0123456789abcdef"
EXCLUDED = {"task_state", "session_handoff", "commit"}
TYPES = ("decision", "lesson_learned", "pattern", "note", "commit", "task_state", "session_handoff")
N = 6000


@pytest.fixture
def seeded(backend: Backend, tmp_path: Path) -> Iterator[Store]:
    """N memories, two thirds in the project: every type, some archived, global or imported (untrusted), some with
    no trust key, dates that tie (so the id decides), newer observations on some, none on others."""
    store = backend.open(tmp_path / "kg.db")
    rng = random.Random(22)
    entities, observations, tags = [], [], []
    for i in range(1, N + 1):
        trust = rng.choice(["trusted"] * 8 + ["untrusted", None])
        metadata = json.dumps({"trust": trust} if trust else {"signal_score": 1.0})
        created = f"2026-0{rng.randint(1, 9)}-1{rng.randint(0, 9)} 10:00:0{rng.randint(0, 3)}"
        status = "archived" if i % 17 == 0 else "active"
        namespace = "global" if i % 23 == 0 else "personal"
        entities.append(
            (
                i,
                f"m-{i}",
                TYPES[i % len(TYPES)],
                f"title {i}" if i % 5 else None,
                namespace,
                status,
                created,
                metadata,
                i % 7,
                None if i % 3 else created,
                1.0,
                i % 4,
                i % 2,
            )
        )
        for k in range(i % 3):  # 0, 1 or 2 observations; a later one moves the memory's activity
            observations.append((i, f"observation {k} of {i}", f"2026-{rng.randint(1, 12):02d}-2{k} 09:00:00"))
        tags.append((i, PROJECT if i % 3 else f"project:other-{i % 5}"))
    with store.transaction():
        store.conn.executemany(
            "INSERT INTO entities (id, name, type, title, namespace, status, created_at, metadata, access_count, "
            "last_accessed_at, confidence, recall_hits, recall_misses) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            entities,
        )
        store.conn.executemany(
            "INSERT INTO observations (entity_id, content, created_at) VALUES (?, ?, ?)", observations
        )
        store.conn.executemany("INSERT INTO tags (entity_id, tag) VALUES (?, ?)", tags)
    yield store
    store.close()


def _with_limit(store: Store, project_tag: str, exclude_types: set[str], limit: int) -> list[CandidateRow]:
    """The query as it was before issue 22: its LIMIT in the SQL, on both engines."""
    dialect = store.dialect
    excluded = sorted(exclude_types)
    sql = (
        f"SELECT {candidates._columns(dialect)} FROM tags t {dialect.cross_join} entities e ON e.id = t.entity_id "
        f"WHERE t.tag = ? AND {candidates._trusted_active(dialect)} AND e.namespace != 'global' "
        f"AND e.type NOT IN ({','.join('?' * len(excluded)) or 'NULL'}) "
        f"ORDER BY {candidates._BY_ACTIVITY} LIMIT ?"
    )
    return [CandidateRow(*row) for row in store.conn.execute(sql, (project_tag, *excluded, limit))]


@pytest.mark.parametrize("limit", [1, 200, 1000, N])
def test_the_project_candidates_are_the_rows_and_order_the_limited_query_gave(seeded: Store, limit: int) -> None:
    found = seeded.project_candidates(PROJECT, EXCLUDED, limit)
    assert found == _with_limit(seeded, PROJECT, EXCLUDED, limit)
    every = _with_limit(seeded, PROJECT, EXCLUDED, N)
    assert len(every) > 1000  # the limits below it cut the sort: the comparison is not over a handful of rows
    assert len(found) == min(limit, len(every))


def test_no_exclusions_and_an_unknown_project_read_alike(seeded: Store) -> None:
    assert seeded.project_candidates(PROJECT, set(), 2200) == _with_limit(seeded, PROJECT, set(), 2200)
    assert seeded.project_candidates("project:nowhere", EXCLUDED, 2200) == []
