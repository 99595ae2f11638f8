"""Note derivation as a pure function: title, observations and name from free text."""

from __future__ import annotations

import hashlib
import re

from hypothesis import given, settings
from hypothesis import strategies as st

from memesh.core.notes import OBSERVATION_MAX, TITLE_MAX, clean_note, derive_note, slug

NAME_SHAPE = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*-[0-9a-f]{8}$")


def _suffix(note: str) -> str:
    return hashlib.sha256(clean_note(note).encode()).hexdigest()[:8]


def test_heading_marker_is_dropped_from_the_title() -> None:
    derived = derive_note("# Why we dropped JWT\n\nSessions are simpler.")
    assert derived is not None
    assert derived.title == "Why we dropped JWT"
    assert derived.observations == ["Sessions are simpler."]


def test_list_marker_is_dropped_from_the_title() -> None:
    for marker in ("- ", "* ", "+ ", "1. ", "2) "):
        derived = derive_note(f"{marker}Cache the schema\n\nIt is read on every call.")
        assert derived is not None
        assert derived.title == "Cache the schema", marker


def test_each_paragraph_becomes_one_observation_with_its_lines_joined() -> None:
    derived = derive_note("Title\n\nfirst paragraph\ncontinues here\n\nsecond paragraph")
    assert derived is not None
    assert derived.observations == ["first paragraph continues here", "second paragraph"]


def test_a_paragraph_of_list_items_gives_one_observation_per_item() -> None:
    derived = derive_note("Title\n\n- one\n- two\n* three\n1. four\n\nafter the list")
    assert derived is not None
    assert derived.observations == ["one", "two", "three", "four", "after the list"]


def test_a_paragraph_mixing_prose_and_items_stays_one_observation() -> None:
    derived = derive_note("Title\n\nIntro line\n- item")
    assert derived is not None
    assert derived.observations == ["Intro line - item"]


def test_a_one_line_note_keeps_its_line_as_the_single_observation() -> None:
    derived = derive_note("Use WAL mode for concurrent readers")
    assert derived is not None
    assert derived.title == "Use WAL mode for concurrent readers"
    assert derived.observations == ["Use WAL mode for concurrent readers"]


def test_a_long_first_line_is_cut_to_its_first_sentence_and_kept_whole_as_the_first_observation() -> None:
    line = "The cache is invalidated on every write. " + "Further detail follows here " * 8
    line = line.strip()
    assert len(line) > TITLE_MAX
    derived = derive_note(f"{line}\n\nsecond paragraph")
    assert derived is not None
    assert derived.title == "The cache is invalidated on every write."
    assert derived.observations == [line, "second paragraph"]


def test_a_long_first_line_without_a_sentence_end_is_cut_to_200_characters_with_an_ellipsis() -> None:
    line = "word " * 50
    line = line.strip()
    assert len(line) == 249
    derived = derive_note(line)
    assert derived is not None
    assert len(derived.title) == TITLE_MAX
    assert derived.title.endswith("…")
    assert line.startswith(derived.title[:-1].rstrip())
    assert derived.observations == [line]


def test_a_first_sentence_over_200_characters_is_itself_cut_to_200() -> None:
    line = "x" * 230 + ". tail"
    derived = derive_note(line)
    assert derived is not None
    assert len(derived.title) == TITLE_MAX
    assert derived.title.endswith("…")
    assert derived.observations == [line]


def test_name_is_the_title_slug_and_eight_hex_of_the_sha256_of_the_cleaned_text() -> None:
    note = "# Why We Dropped JWT!\n\nSessions are simpler."
    derived = derive_note(note)
    assert derived is not None
    expected = hashlib.sha256(b"# Why We Dropped JWT!\n\nSessions are simpler.").hexdigest()[:8]
    assert derived.name == f"why-we-dropped-jwt-{expected}"


def test_the_hash_is_taken_over_the_cleaned_text() -> None:
    noisy = "\x01Title\x02\r\n\r\nbody\x7f"
    derived = derive_note(noisy)
    assert derived is not None
    assert derived.cleaned == "Title\n\nbody"
    assert derived.name == "title-" + hashlib.sha256(b"Title\n\nbody").hexdigest()[:8]


def test_a_title_with_no_ascii_letters_or_digits_slugs_to_note() -> None:
    for text in ("日本語のタイトル\n\n本文", "Ω ≈ ç\n\nbody", "!!! ???"):
        derived = derive_note(text)
        assert derived is not None
        assert derived.name == f"note-{_suffix(text)}", text


def test_slug_keeps_ascii_letters_and_digits_joined_by_single_dashes() -> None:
    assert slug("  Hello, World -- 2026!  ") == "hello-world-2026"
    assert slug("") == "note"
    assert len(slug("a" * 300)) == 60


def test_the_same_text_always_derives_the_same_name() -> None:
    first = derive_note("Same text\n\nbody")
    second = derive_note("Same text\n\nbody")
    assert first is not None
    assert second is not None
    assert first.name == second.name


def test_a_paragraph_over_10000_characters_is_truncated_with_an_ellipsis() -> None:
    derived = derive_note("Title\n\n" + "y" * 12_000)
    assert derived is not None
    assert len(derived.observations[0]) == OBSERVATION_MAX
    assert derived.observations[0] == "y" * (OBSERVATION_MAX - 1) + "…"


def test_a_note_that_is_blank_after_cleaning_derives_nothing() -> None:
    assert derive_note("  \n\x01\x02\t \n") is None


def test_control_characters_are_removed_before_deriving() -> None:
    derived = derive_note("Ti\x00tle\x1b\n\nbo\x08dy\twith tab")
    assert derived is not None
    assert derived.title == "Title"
    assert derived.observations == ["body with tab"]


def test_secrets_are_redacted_before_deriving() -> None:
    token = "ghp_" + "A1b2C3d4" * 5
    derived = derive_note(f"Token {token} leaked\n\nRotate {token} now")
    assert derived is not None
    assert token not in derived.title
    assert "***REDACTED***" in derived.title
    assert all(token not in text for text in derived.observations)


# Arbitrary characters mixed with the pieces the derivation treats specially (markers, blank lines, controls,
# CJK, emoji, a lone surrogate, a secret's prefix).
NOTE_TEXT = st.lists(
    st.one_of(
        st.text(max_size=40),
        st.sampled_from(["\n", "\n\n", "- ", "# ", "1. ", ". ", "\r", "\x00", "\t", "日本", "🙂", "sk-", "\ud800"]),
    ),
    max_size=80,
).map("".join)


@settings(max_examples=200, deadline=None)
@given(NOTE_TEXT)
def test_deriving_any_text_never_crashes_and_obeys_the_caps(text: str) -> None:
    derived = derive_note(text)
    if derived is None:
        assert clean_note(text) == ""
        return
    assert 0 < len(derived.title) <= TITLE_MAX
    assert "\n" not in derived.title
    assert all(0 < len(obs) <= OBSERVATION_MAX for obs in derived.observations)
    assert NAME_SHAPE.fullmatch(derived.name), derived.name
    assert derived.name.endswith(_suffix(text))
    for piece in (derived.title, *derived.observations):
        assert not re.search("[\x00-\x08\x0b-\x1f\x7f\ud800-\udfff]", piece)


@settings(max_examples=50, deadline=None)
@given(st.lists(st.text(alphabet="abc xyz", min_size=1, max_size=20), min_size=1, max_size=150))
def test_list_items_each_become_one_observation(items: list[str]) -> None:
    words = [item.strip() for item in items if item.strip()]
    if not words:
        return
    derived = derive_note("Title\n\n" + "\n".join(f"- {word}" for word in words))
    assert derived is not None
    assert derived.observations == [" ".join(word.split()) for word in words]


def test_a_cut_heading_is_kept_in_full_as_written_with_its_marker() -> None:
    line = "## " + "h" * 250
    derived = derive_note(f"{line}\n\nbody")
    assert derived is not None
    assert derived.title == "h" * 199 + "…"
    assert derived.observations == [line, "body"]
