"""text_observations: what free text contributes beside explicit observations, by the same split as a note."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from memesh.core.notes import derive_note, text_observations


def test_text_alone_contributes_exactly_what_the_note_form_derives() -> None:
    text = "# Why we dropped JWT\n\nSessions are simpler.\n\n- no refresh dance\n- revocable"
    assert text_observations(text) == ["Sessions are simpler.", "no refresh dance", "revocable"]


def test_with_an_explicit_title_the_first_line_is_kept_first() -> None:
    text = "# Why we dropped JWT\n\nSessions are simpler."
    assert text_observations(text, titled=True) == ["Why we dropped JWT", "Sessions are simpler."]


def test_a_one_line_text_is_its_own_observation_either_way() -> None:
    assert text_observations("Use PKCE") == ["Use PKCE"]
    assert text_observations("Use PKCE", titled=True) == ["Use PKCE"]


def test_a_first_line_too_long_for_a_title_is_kept_whole() -> None:
    line = "First sentence. " + "x" * 250
    assert text_observations(f"{line}\n\nbody") == [line.strip(), "body"]


def test_list_items_count_one_observation_each() -> None:
    text = "\n".join(f"- item {i}" for i in range(103))
    assert len(text_observations(text)) == 102
    assert len(text_observations(text, titled=True)) == 103


def test_blank_text_contributes_nothing() -> None:
    assert text_observations(" \n\t\n") == []


@given(st.text(max_size=400))
def test_untitled_text_matches_the_note_form_and_a_title_only_adds_the_first_line(text: str) -> None:
    derived = derive_note(text)
    untitled = text_observations(text)
    titled = text_observations(text, titled=True)
    assert untitled == (derived.observations if derived else [])
    assert titled[len(titled) - len(untitled) :] == untitled
    assert len(titled) - len(untitled) in (0, 1)
