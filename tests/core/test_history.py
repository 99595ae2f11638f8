"""The replaced-history bound as a pure function: newest 20 versions, 64 KB, one oversized version pared down."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from memesh.core.history import HISTORY_MAX_BYTES, HISTORY_MAX_VERSIONS, bound, summarize, version
from memesh.core.sizecap import json_bytes


def _v(n: int, observations: list[str] | None = None, tags: list[str] | None = None) -> dict[str, Any]:
    return version(f"2026-01-{n:02d}T00:00:00.000Z", f"title {n}", observations or [f"o{n}"], tags or [])


def test_a_version_has_exactly_the_documented_keys() -> None:
    assert version("2026-01-01T00:00:00.000Z", None, ["a"], ["t"]) == {
        "replaced_at": "2026-01-01T00:00:00.000Z",
        "title": None,
        "observations": ["a"],
        "tags": ["t"],
    }


def test_only_the_newest_20_versions_are_kept() -> None:
    kept = bound([_v(n) for n in range(1, 26)])
    assert len(kept) == HISTORY_MAX_VERSIONS
    assert [entry["title"] for entry in kept] == [f"title {n}" for n in range(6, 26)]


def test_older_versions_are_dropped_first_to_fit_64_kb() -> None:
    history = [_v(n, ["x" * 20_000]) for n in range(1, 6)]
    kept = bound(history)
    assert [entry["title"] for entry in kept] == ["title 3", "title 4", "title 5"]
    assert json_bytes(kept) <= HISTORY_MAX_BYTES


def test_one_oversized_version_keeps_the_observations_then_the_tags_that_fit() -> None:
    observations = ["a" * 30_000, "b" * 30_000, "c" * 30_000]
    [entry] = bound([_v(1, observations, ["t1", "t2"])])
    assert entry["truncated"] is True
    assert entry["observations"] == observations[:2]
    assert entry["tags"] == ["t1", "t2"]
    assert json_bytes([entry]) <= HISTORY_MAX_BYTES


def test_a_version_that_fits_is_not_marked_truncated() -> None:
    assert "truncated" not in bound([_v(1)])[0]


def test_summarize_replaces_the_history_with_its_count() -> None:
    metadata = {"signal_score": 0.5, "replaced_history": [_v(1), _v(2)]}
    assert summarize(metadata) == {"signal_score": 0.5, "replaced_history_count": 2}
    assert summarize({"signal_score": 0.5}) == {"signal_score": 0.5}


VERSIONS = st.lists(
    st.builds(
        _v,
        st.integers(1, 28),
        st.lists(st.tuples(st.sampled_from("ab日"), st.integers(0, 9_000)).map(lambda p: p[0] * p[1]), max_size=8),
        st.lists(st.text(max_size=30), max_size=5),
    ),
    max_size=30,
)


@settings(max_examples=60, deadline=None)
@given(VERSIONS)
def test_the_bounded_history_always_fits_and_keeps_the_newest(history: list[dict[str, Any]]) -> None:
    kept = bound(history)
    assert len(kept) <= HISTORY_MAX_VERSIONS
    assert json_bytes(kept) <= HISTORY_MAX_BYTES
    if history:
        assert kept
        assert kept[-1]["replaced_at"] == history[-1]["replaced_at"]
