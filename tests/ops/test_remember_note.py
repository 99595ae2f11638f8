"""remember, note form: what the server derives from free text, and the limits on it."""

from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING

from memesh.errors import ErrorCode
from memesh.store.sqlite import SqliteStore

if TYPE_CHECKING:
    from tests.conftest import Caller


def _hex8(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:8]


def test_a_note_derives_title_observations_name_and_type(tools: Caller, fresh_db: SqliteStore) -> None:
    note = "# Why we dropped JWT\n\nSessions are simpler.\n\n- no refresh dance\n- revocable"
    out = tools.ok("remember", {"note": note})
    name = f"why-we-dropped-jwt-{_hex8(note)}"
    observations = ["Sessions are simpler.", "no refresh dance", "revocable"]
    assert out["name"] == name
    assert out["title"] == "Why we dropped JWT"
    assert out["type"] == "note"
    assert out["observations"] == 3
    assert out["derived"] == {"name": name, "type": "note", "title": "Why we dropped JWT", "observations": observations}
    entity = fresh_db.find(name)
    assert entity is not None
    assert entity.title == "Why we dropped JWT"
    assert entity.observations == observations


def test_a_note_takes_the_given_type_name_and_tags(tools: Caller, fresh_db: SqliteStore) -> None:
    out = tools.ok("remember", {"note": "Retry on 429", "type": "mistake", "name": "rate-limit", "tags": ["t"]})
    assert out["name"] == "rate-limit"
    assert out["type"] == "lesson_learned"
    assert out["derived"]["name"] == "rate-limit"
    entity = fresh_db.find("rate-limit")
    assert entity is not None
    assert entity.tags == ["t"]


def test_a_one_line_note_stores_its_line_as_title_and_single_observation(tools: Caller) -> None:
    out = tools.ok("remember", {"note": "Use WAL mode"})
    assert out["title"] == "Use WAL mode"
    assert out["derived"]["observations"] == ["Use WAL mode"]


def test_a_250_character_first_line_becomes_a_short_title_and_its_full_text_the_first_observation(
    tools: Caller, fresh_db: SqliteStore
) -> None:
    line = "Migrations run inside one transaction. " + "z" * 211
    assert len(line) == 250
    out = tools.ok("remember", {"note": f"{line}\n\nSecond paragraph"})
    assert out["title"] == "Migrations run inside one transaction."
    assert out["derived"]["observations"] == [line, "Second paragraph"]
    entity = fresh_db.find(out["name"])
    assert entity is not None
    assert entity.observations == [line, "Second paragraph"]


def test_a_250_character_first_line_with_no_sentence_end_is_cut_to_200_with_an_ellipsis(tools: Caller) -> None:
    line = "abcd " * 50
    out = tools.ok("remember", {"note": line})
    assert len(out["title"]) == 200
    assert out["title"].endswith("…")
    assert out["derived"]["observations"] == [line.strip()]


def test_a_title_with_no_ascii_letters_names_the_memory_note_and_a_hash(tools: Caller) -> None:
    note = "認証方式の決定\n\nJWT をやめてセッションにした"
    out = tools.ok("remember", {"note": note})
    assert out["name"] == f"note-{_hex8(note)}"
    assert out["title"] == "認証方式の決定"


def test_the_same_note_twice_is_one_memory_and_the_second_call_adds_nothing(
    tools: Caller, fresh_db: SqliteStore
) -> None:
    note = "Cache the schema\n\nIt is read on every call.\n\nInvalidate on deploy."
    first = tools.ok("remember", {"note": note})
    second = tools.ok("remember", {"note": note})
    assert second["name"] == first["name"]
    assert second["entityId"] == first["entityId"]
    assert first["observations"] == 2
    assert second["observations"] == 0
    assert fresh_db.count() == 1
    entity = fresh_db.find(first["name"])
    assert entity is not None
    assert entity.observations == ["It is read on every call.", "Invalidate on deploy."]


def test_a_note_sent_to_an_existing_name_appends_and_keeps_the_stored_title(
    tools: Caller, fresh_db: SqliteStore
) -> None:
    tools.ok("remember", {"name": "m", "type": "decision", "title": "Stored title", "observations": ["one"]})
    out = tools.ok("remember", {"name": "m", "note": "A different title\n\ntwo"})
    assert out["title"] == "Stored title"
    assert out["derived"]["title"] == "A different title"
    assert out["type"] == "decision"
    entity = fresh_db.find("m")
    assert entity is not None
    assert entity.title == "Stored title"
    assert entity.observations == ["one", "two"]


def test_a_note_of_20001_characters_is_refused(tools: Caller, fresh_db: SqliteStore) -> None:
    error = tools.fails("remember", {"note": "a" * 20_001})
    assert error.code == ErrorCode.BAD_BODY
    assert error.message.startswith("note: ")
    assert fresh_db.count() == 0


def test_a_note_of_20000_characters_is_accepted(tools: Caller) -> None:
    tools.ok("remember", {"note": "Title\n\n" + "b " * 9_996})


def test_a_note_with_101_list_items_is_refused_with_the_count(tools: Caller, fresh_db: SqliteStore) -> None:
    items = "\n".join(f"- item {i}" for i in range(101))
    error = tools.fails("remember", {"note": f"Checklist\n\n{items}"})
    assert error.code == ErrorCode.BAD_BODY
    assert error.message.startswith("note: ")
    assert "note yields 101 observations" in error.message
    assert fresh_db.count() == 0


def test_a_note_with_100_list_items_is_accepted(tools: Caller) -> None:
    items = "\n".join(f"- item {i}" for i in range(100))
    assert tools.ok("remember", {"note": f"Checklist\n\n{items}"})["observations"] == 100


def test_a_12000_character_paragraph_is_silently_truncated_to_10000_with_an_ellipsis(
    tools: Caller, fresh_db: SqliteStore
) -> None:
    out = tools.ok("remember", {"note": "Title\n\n" + "q" * 12_000})
    stored = fresh_db.find(out["name"])
    assert stored is not None
    assert stored.observations == ["q" * 9_999 + "…"]
    assert out["derived"]["observations"] == stored.observations


def test_a_note_cannot_be_combined_with_title_or_observations(tools: Caller) -> None:
    error = tools.fails("remember", {"note": "x", "title": "t", "observations": ["o"]})
    assert error.code == ErrorCode.BAD_BODY
    assert error.message.startswith("title: ")
    assert "; observations: " in error.message


def test_a_note_blank_after_cleaning_is_refused(tools: Caller) -> None:
    error = tools.fails("remember", {"note": " \x01\n\t "})
    assert error.code == ErrorCode.BAD_BODY
    assert error.message.startswith("note: ")


def test_a_replace_with_a_note_needs_an_explicit_name(tools: Caller) -> None:
    error = tools.fails("remember", {"note": "x", "replace": True})
    assert error.code == ErrorCode.BAD_BODY
    assert error.message.startswith("name: ")


def test_a_replace_with_a_note_rewrites_title_and_observations(tools: Caller, fresh_db: SqliteStore) -> None:
    tools.ok("remember", {"name": "m", "type": "fact", "title": "Old", "observations": ["old"]})
    out = tools.ok("remember", {"name": "m", "note": "New title\n\nnew body", "replace": True})
    assert out["replaced"] is True
    assert out["title"] == "New title"
    entity = fresh_db.find("m")
    assert entity is not None
    assert entity.observations == ["new body"]
    assert entity.type == "fact"
