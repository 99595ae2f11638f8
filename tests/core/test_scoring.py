"""The five-factor score's parts, as pure functions."""

from __future__ import annotations

import pytest

from memesh.core import scoring


def test_relevance_is_each_score_as_a_share_of_the_best() -> None:
    assert scoring.relevance([(3, 8.0), (1, 4.0), (2, 2.0)]) == {3: 1.0, 1: 0.5, 2: 0.25}


def test_relevance_of_no_match_is_empty() -> None:
    assert scoring.relevance([]) == {}


def test_frequency_grows_with_the_log_of_the_count_up_to_a_ceiling() -> None:
    assert scoring.frequency(0) == 0.0
    assert scoring.frequency(1) == pytest.approx(0.15, abs=0.01)
    assert scoring.frequency(10) < scoring.frequency(50) < scoring.frequency(scoring.FREQUENT_RECALLS) == 1.0
    assert scoring.frequency(10 * scoring.FREQUENT_RECALLS) == 1.0


def test_a_lower_frequency_weight_keeps_a_better_match_above_a_popular_one() -> None:
    """Issue 38: hybrid weighs access frequency 0.03, not 0.18, so earlier recalls do not outrank the query."""
    from datetime import UTC, datetime

    now = datetime(2026, 12, 7, tzinfo=UTC)
    fits = scoring.Signals(1, None, 0, 0.8)
    popular = scoring.Signals(2, None, 40, 0.8)
    relevance = {1: 1.0, 2: 0.8}
    assert scoring.rank([fits, popular], relevance, now) == [2, 1]  # the reference's 0.18
    assert scoring.rank([fits, popular], relevance, now, frequency_weight=scoring.HYBRID_FREQUENCY_WEIGHT) == [1, 2]
    assert scoring.rank([fits, popular], relevance, now) == scoring.rank(
        [fits, popular], relevance, now, frequency_weight=scoring.WEIGHTS["frequency"]
    )
