"""remember, structured form: upsert rules, types, titles, namespaces, provenance and reactivation."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from returns.result import Success

from memesh.context import CallContext
from memesh.errors import ErrorCode
from memesh.store.sqlite import SqliteStore
from tests.calls import call

if TYPE_CHECKING:
    from tests.conftest import Caller


def _stored(db: SqliteStore, name: str) -> Any:
    entity = db.find(name)
    assert entity is not None
    return entity


def test_structured_remember_stores_every_part_and_reports_counts(tools: Caller, fresh_db: SqliteStore) -> None:
    out = tools.ok(
        "remember",
        {
            "name": "auth-decision",
            "type": "decision",
            "title": "Why we chose JWT",
            "observations": ["Chose JWT for authentication", "RS256 for signing"],
            "tags": ["project:myapp", "topic:auth"],
        },
    )
    assert out == {
        "stored": True,
        "entityId": out["entityId"],
        "name": "auth-decision",
        "title": "Why we chose JWT",
        "type": "decision",
        "observations": 2,
        "tags": 2,
        "relations": 0,
    }
    entity = _stored(fresh_db, "auth-decision")
    assert entity.id == out["entityId"]
    assert entity.observations == ["Chose JWT for authentication", "RS256 for signing"]
    assert entity.tags == ["project:myapp", "topic:auth"]
    assert entity.namespace == "personal"
    assert entity.status == "active"
    assert "derived" not in out


def test_title_is_null_when_none_was_ever_given(tools: Caller) -> None:
    out = tools.ok("remember", {"name": "n", "type": "fact", "observations": ["x"]})
    assert out["title"] is None


def test_remembering_an_existing_name_appends_new_observations_only(tools: Caller, fresh_db: SqliteStore) -> None:
    tools.ok("remember", {"name": "m", "type": "fact", "observations": ["one", "two"]})
    out = tools.ok("remember", {"name": "m", "type": "fact", "observations": ["two", "three", "three"]})
    assert _stored(fresh_db, "m").observations == ["one", "two", "three"]
    assert out["entityId"] == _stored(fresh_db, "m").id


def test_an_append_keeps_the_original_type(tools: Caller, fresh_db: SqliteStore) -> None:
    tools.ok("remember", {"name": "m", "type": "decision", "observations": ["one"]})
    out = tools.ok("remember", {"name": "m", "type": "pattern", "observations": ["two"]})
    assert out["type"] == "decision"
    assert _stored(fresh_db, "m").type == "decision"


def test_an_append_dedupes_tags(tools: Caller, fresh_db: SqliteStore) -> None:
    tools.ok("remember", {"name": "m", "type": "fact", "observations": ["one"], "tags": ["a", "b", "a"]})
    tools.ok("remember", {"name": "m", "type": "fact", "observations": ["one"], "tags": ["b", "c", "c"]})
    assert _stored(fresh_db, "m").tags == ["a", "b", "c"]


def test_duplicate_observations_are_kept_for_lesson_learned(tools: Caller, fresh_db: SqliteStore) -> None:
    tools.ok("remember", {"name": "l", "type": "lesson_learned", "observations": ["retry", "retry"]})
    tools.ok("remember", {"name": "l", "type": "lesson_learned", "observations": ["retry"]})
    assert _stored(fresh_db, "l").observations == ["retry", "retry", "retry"]


def test_lesson_and_mistake_are_stored_as_lesson_learned(tools: Caller, fresh_db: SqliteStore) -> None:
    for name, kind in (("a", "lesson"), ("b", "mistake")):
        out = tools.ok("remember", {"name": name, "type": kind, "observations": ["x"]})
        assert out["type"] == "lesson_learned"
        assert _stored(fresh_db, name).type == "lesson_learned"


def test_a_title_over_200_characters_is_refused_naming_title(tools: Caller, fresh_db: SqliteStore) -> None:
    error = tools.fails("remember", {"name": "t", "type": "fact", "title": "x" * 201, "observations": ["o"]})
    assert error.code == ErrorCode.BAD_BODY
    assert error.message.startswith("title: ")
    assert fresh_db.find("t") is None


def test_a_title_of_exactly_200_characters_is_stored(tools: Caller) -> None:
    out = tools.ok("remember", {"name": "t", "type": "fact", "title": "x" * 200, "observations": ["o"]})
    assert out["title"] == "x" * 200


def test_a_new_title_replaces_the_stored_one(tools: Caller) -> None:
    tools.ok("remember", {"name": "t", "type": "fact", "title": "Old", "observations": ["o"]})
    out = tools.ok("remember", {"name": "t", "type": "fact", "title": "New", "observations": ["o"]})
    assert out["title"] == "New"


def test_an_append_without_title_keeps_and_reports_the_stored_title(tools: Caller) -> None:
    tools.ok("remember", {"name": "t", "type": "fact", "title": "Kept", "observations": ["o"]})
    out = tools.ok("remember", {"name": "t", "type": "fact", "observations": ["p"]})
    assert out["title"] == "Kept"


def test_a_whitespace_only_title_counts_as_omitted(tools: Caller, fresh_db: SqliteStore) -> None:
    tools.ok("remember", {"name": "t", "type": "fact", "title": "Kept", "observations": ["o"]})
    out = tools.ok("remember", {"name": "t", "type": "fact", "title": " \t\n ", "observations": ["p"]})
    assert out["title"] == "Kept"
    fresh = tools.ok("remember", {"name": "u", "type": "fact", "title": "   ", "observations": ["o"]})
    assert fresh["title"] is None
    assert _stored(fresh_db, "u").title is None


def test_a_new_memory_lands_in_personal_unless_a_namespace_is_given(tools: Caller, fresh_db: SqliteStore) -> None:
    tools.ok("remember", {"name": "p", "type": "fact", "observations": ["o"]})
    tools.ok("remember", {"name": "t", "type": "fact", "observations": ["o"], "namespace": "team"})
    assert _stored(fresh_db, "p").namespace == "personal"
    assert _stored(fresh_db, "t").namespace == "team"


def test_a_namespace_on_an_existing_memory_moves_it_and_records_where_from(
    tools: Caller, fresh_db: SqliteStore
) -> None:
    tools.ok("remember", {"name": "m", "type": "fact", "observations": ["o"]})
    out = tools.ok("remember", {"name": "m", "type": "fact", "observations": ["o"], "namespace": "global"})
    assert out["movedFromNamespace"] == "personal"
    entity = _stored(fresh_db, "m")
    assert entity.namespace == "global"
    assert entity.metadata["previous_namespace"] == "personal"


def test_an_omitted_namespace_keeps_the_memory_where_it_is(tools: Caller, fresh_db: SqliteStore) -> None:
    tools.ok("remember", {"name": "m", "type": "fact", "observations": ["o"], "namespace": "team"})
    out = tools.ok("remember", {"name": "m", "type": "fact", "observations": ["p"]})
    assert "movedFromNamespace" not in out
    assert _stored(fresh_db, "m").namespace == "team"


def test_the_same_namespace_again_is_not_a_move(tools: Caller) -> None:
    tools.ok("remember", {"name": "m", "type": "fact", "observations": ["o"], "namespace": "team"})
    out = tools.ok("remember", {"name": "m", "type": "fact", "observations": ["o"], "namespace": "team"})
    assert "movedFromNamespace" not in out


def test_source_host_is_stamped_from_the_context_on_first_insert(tools: Caller, fresh_db: SqliteStore) -> None:
    tools.ok("remember", {"name": "m", "type": "fact", "observations": ["o"]})
    assert _stored(fresh_db, "m").metadata["provenance"]["source_host"] == "test-host"


def test_an_append_from_another_host_does_not_rewrite_source_host(tools: Caller, fresh_db: SqliteStore) -> None:
    tools.ok("remember", {"name": "m", "type": "fact", "observations": ["o"]})
    cli = CallContext(source_host="cli", agent_view=True, now=tools.ctx.now)
    assert isinstance(call("remember", fresh_db, {"name": "m", "type": "fact", "observations": ["p"]}, cli), Success)
    assert isinstance(call("remember", fresh_db, {"name": "m", "replace": True, "observations": ["q"]}, cli), Success)
    assert _stored(fresh_db, "m").observations == ["q"]
    assert _stored(fresh_db, "m").metadata["provenance"]["source_host"] == "test-host"


def test_provenance_is_not_an_input(tools: Caller, fresh_db: SqliteStore) -> None:
    for key, value in (
        ("provenance", {"source_host": "forged"}),
        ("source_host", "forged"),
        ("metadata", {"provenance": {"source_host": "forged"}}),
    ):
        error = tools.fails("remember", {"name": "m", "type": "fact", "observations": ["o"], key: value})
        assert error.code == ErrorCode.BAD_BODY
        assert error.message == f"{key}: Unrecognized key"
    assert fresh_db.find("m") is None


def test_remembering_an_archived_memory_reactivates_it(tools: Caller, fresh_db: SqliteStore) -> None:
    tools.ok("remember", {"name": "m", "type": "fact", "observations": ["o"]})
    tools.ok("forget", {"name": "m"})
    assert _stored(fresh_db, "m").status == "archived"
    tools.ok("remember", {"name": "m", "type": "fact", "observations": ["back"]})
    entity = _stored(fresh_db, "m")
    assert entity.status == "active"
    assert entity.observations == ["o", "back"]
    assert [e["name"] for e in tools.ok("recall", {"query": "back"})["entities"]] == ["m"]


def test_a_structured_call_without_name_or_type_is_refused_naming_each(tools: Caller) -> None:
    error = tools.fails("remember", {"observations": ["o"]})
    assert error.code == ErrorCode.BAD_BODY
    assert [issue.split(":")[0] for issue in error.message.split("; ")] == ["name", "type"]


def test_a_whitespace_only_observation_is_refused_with_its_index(tools: Caller) -> None:
    error = tools.fails("remember", {"name": "m", "type": "fact", "observations": ["ok", "  "]})
    assert error.code == ErrorCode.BAD_BODY
    assert error.message.startswith("observations.1: ")


def test_an_observation_of_10001_characters_is_refused(tools: Caller, fresh_db: SqliteStore) -> None:
    error = tools.fails("remember", {"name": "m", "type": "fact", "observations": ["y" * 10_001]})
    assert error.code == ErrorCode.BAD_BODY
    assert error.message.startswith("observations.0: ")
    assert fresh_db.find("m") is None


def test_control_characters_are_removed_from_observations_and_title(tools: Caller, fresh_db: SqliteStore) -> None:
    out = tools.ok(
        "remember", {"name": "m", "type": "fact", "title": "Ti\x00t\x1ble", "observations": ["a\x01b\tc\nd\x7f"]}
    )
    assert out["title"] == "Title"
    assert _stored(fresh_db, "m").observations == ["ab\tc\nd"]


def test_lone_surrogates_in_names_tags_and_filters_are_stored_as_the_replacement_character(
    tools: Caller, fresh_db: SqliteStore
) -> None:
    out = tools.ok("remember", {"name": "x\ud800", "type": "fa\udc00ct", "observations": ["o"], "tags": ["t\ud800"]})
    assert out["name"] == "x\ufffd"
    entity = _stored(fresh_db, "x\ufffd")
    assert entity.type == "fa\ufffdct"
    assert entity.tags == ["t\ufffd"]
    assert [e["name"] for e in tools.ok("recall", {"tag": "t\udfff"})["entities"]] == ["x\ufffd"]
    assert tools.ok("forget", {"name": "x\udbff"})["archived"] is True


def test_a_title_or_observation_of_control_characters_alone_counts_as_blank(tools: Caller) -> None:
    tools.ok("remember", {"name": "m", "type": "fact", "title": "Kept", "observations": ["o"]})
    out = tools.ok("remember", {"name": "m", "type": "fact", "title": "\u0007", "observations": ["p"]})
    assert out["title"] == "Kept"
    error = tools.fails("remember", {"name": "n", "type": "fact", "observations": ["\u0001"]})
    assert error.message.startswith("observations.0: an observation must not be empty")
