"""The stats' distinct-tag count, read over the tag index's distinct values (issue 36: `COUNT(DISTINCT tag)` sorted
every tag row), is the number the old query gave, on both engines, for any tags a store may hold."""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memesh.store.open import Store
from tests.backends import Backend

OLD_QUERY = "SELECT COUNT(DISTINCT tag) FROM tags"
# Tags that differ only in case, accents, spacing or normalization, beside free text: the count must tell them apart
# exactly as the old query did.
TAG = st.sampled_from(["a", "A", "é", "é", "a ", " a", "project:x", "project:X", "ß", "ss"]) | st.text(
    alphabet=st.characters(exclude_categories=["Cs"], exclude_characters="\x00"), min_size=1, max_size=6
)


@pytest.fixture
def store(backend: Backend, tmp_path: Path) -> Iterator[Store]:
    opened = backend.open(tmp_path / "kg.db")
    yield opened
    opened.close()


def _replace_tags(store: Store, tags_per_entity: list[list[str]]) -> None:
    with store.transaction():
        store.conn.execute("DELETE FROM tags")
        store.conn.execute("DELETE FROM entities")
        store.conn.executemany(
            "INSERT INTO entities (id, name, type) VALUES (?, ?, 'note')",
            [(i, f"m-{i}") for i in range(1, len(tags_per_entity) + 1)],
        )
        store.conn.executemany(
            "INSERT INTO tags (entity_id, tag) VALUES (?, ?)",
            [(i, tag) for i, tags in enumerate(tags_per_entity, start=1) for tag in dict.fromkeys(tags)],
        )


def _old_count(store: Store) -> int:
    return int(store.conn.execute(OLD_QUERY).fetchone()[0])


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(tags_per_entity=st.lists(st.lists(TAG, max_size=4), max_size=12))
def test_the_distinct_tag_count_is_the_old_querys_for_any_tags(store: Store, tags_per_entity: list[list[str]]) -> None:
    _replace_tags(store, tags_per_entity)
    assert store.totals()[3] == _old_count(store)


def test_the_distinct_tag_count_is_the_old_querys_over_thousands_of_rows(store: Store) -> None:
    rng = random.Random(36)
    vocabulary = [f"topic:t{i}" for i in range(300)] + [f"project:p{i}" for i in range(20)]
    rows = [rng.sample(vocabulary, rng.randint(0, 5)) + [f"unique:{i}"] * (i % 4 == 0) for i in range(3000)]
    _replace_tags(store, rows)
    expected = len({tag for tags in rows for tag in tags})
    assert _old_count(store) == expected
    assert store.totals()[3] == expected


def test_an_empty_store_counts_no_tags(store: Store) -> None:
    assert store.totals() == (0, 0, 0, 0)
