"""Near-miss types from plain values: a typo of a known type is named, a known or unrelated type is not."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from memesh.core import type_hints


def test_a_typo_of_a_known_type_names_the_type_it_misses() -> None:
    assert type_hints.near_miss("desicion") == "decision"
    assert type_hints.near_miss("lesson_learnt") == "lesson_learned"


def test_a_known_type_or_one_unlike_any_is_not_a_near_miss() -> None:
    assert type_hints.near_miss("decision") is None
    assert type_hints.near_miss("runbook") is None


@given(st.text(max_size=40))
def test_any_text_is_either_no_near_miss_or_a_known_type_other_than_itself(entity_type: str) -> None:
    found = type_hints.near_miss(entity_type)
    assert found is None or (found in type_hints.KNOWN and found != entity_type)


def test_a_type_that_starts_with_another_letter_is_not_taken_for_a_typo() -> None:
    assert type_hints.near_miss("session") is None
