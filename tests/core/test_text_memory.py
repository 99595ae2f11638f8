"""from_text: free text plus an explicit title or observations, as one structured remember request."""

from __future__ import annotations

from memesh.core.notes import derive_note
from memesh.core.text_memory import from_text
from memesh.errors import ErrorCode

TEXT = "Auth choice\n\nWe use PKCE.\n\n- no implicit"


def test_the_text_observations_come_first_then_the_explicit_ones() -> None:
    shaped = from_text(TEXT, name=None, entity_type=None, title=None, observations=["extra"]).unwrap()
    assert shaped.observations == ["We use PKCE.", "no implicit", "extra"]
    assert (shaped.title, shaped.title_derived) == ("Auth choice", True)


def test_without_a_name_the_note_name_and_type_are_derived() -> None:
    shaped = from_text(TEXT, name=None, entity_type=None, title=None, observations=["extra"]).unwrap()
    derived = derive_note(TEXT)
    assert derived is not None
    assert (shaped.name, shaped.type) == (derived.name, "note")


def test_an_explicit_title_wins_and_names_the_memory() -> None:
    shaped = from_text(TEXT, name=None, entity_type="decision", title="Auth", observations=[]).unwrap()
    assert (shaped.title, shaped.title_derived, shaped.type) == ("Auth", False, "decision")
    assert shaped.observations == ["Auth choice", "We use PKCE.", "no implicit"]
    assert shaped.name is not None
    assert shaped.name.startswith("auth-")


def test_a_blank_title_counts_as_omitted() -> None:
    shaped = from_text(TEXT, name="n", entity_type="t", title="   ", observations=[]).unwrap()
    assert (shaped.title, shaped.title_derived) == ("Auth choice", True)


def test_a_given_name_and_type_are_kept_as_given() -> None:
    shaped = from_text(TEXT, name="auth", entity_type=None, title=None, observations=[]).unwrap()
    assert (shaped.name, shaped.type) == ("auth", None)  # the type rule stays remember's


def test_more_than_100_observations_in_all_is_refused_with_the_total() -> None:
    text = "\n".join(f"- item {i}" for i in range(103))  # 102 observations of its own
    error = from_text(text, name=None, entity_type=None, title=None, observations=["extra one"]).failure()
    assert error.code == ErrorCode.BAD_BODY
    assert "that is 103 observations; at most 100 are stored per memory" in error.message


def test_exactly_100_observations_is_allowed() -> None:
    text = "\n".join(f"- item {i}" for i in range(100))  # 99 of its own
    assert (
        len(from_text(text, name=None, entity_type=None, title=None, observations=["x"]).unwrap().observations) == 100
    )


def test_blank_text_contributes_nothing_and_derives_no_name() -> None:
    shaped = from_text("  ", name=None, entity_type=None, title=None, observations=["x"]).unwrap()
    assert (shaped.name, shaped.title, shaped.observations, shaped.title_derived) == (None, None, ["x"], False)
