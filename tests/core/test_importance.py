"""`metadata.signal_score`: a memory's weight from its type and content alone."""

from __future__ import annotations

import pytest

from memesh.core.importance import signal_score


def test_a_lesson_with_real_content_weighs_most() -> None:
    assert signal_score("lesson_learned", ["Always pin the migration number in the test"], []) == 1.0


def test_text_too_short_to_say_anything_weighs_at_most_a_tenth() -> None:
    assert signal_score("lesson_learned", ["ok"], []) == 0.1


def test_an_empty_session_keypoint_weighs_nothing() -> None:
    assert signal_score("session_keypoint", ["Duration: 0s, Tools used: 0"], []) == 0.0


def test_a_commit_with_a_short_bare_subject_weighs_little() -> None:
    assert signal_score("commit", ["fix typo in readme file"], []) == 0.2
    assert signal_score("commit", ["feat: add the router as a transport"], []) == 0.4


def test_a_long_decision_gains_a_little_over_its_base() -> None:
    assert signal_score("decision", ["x" * 201], []) == pytest.approx(0.95)


def test_an_unknown_type_takes_the_default_weight() -> None:
    assert signal_score("scribble", ["something worth keeping"], []) == 0.5
