"""Project listing rules: tags name projects; untagged names join one under its label, or share a prefix."""

from __future__ import annotations

from memesh.core.projects import merge, prefix_owner

WEB = "web~" + "a" * 32


def test_tagged_memories_make_a_project_with_its_commonest_types() -> None:
    listing = merge([(WEB, "decision", 3), (WEB, "note", 1)], [])
    assert listing == [{"name": WEB, "count": 4, "types": ["decision", "note"], "source": "tag"}]


def test_an_untagged_name_under_a_known_label_makes_the_source_mixed() -> None:
    listing = merge([(WEB, "decision", 1)], [("web-auth-choice", "lesson_learned"), ("website-copy", "note")])
    assert listing == [{"name": WEB, "count": 2, "types": ["decision", "lesson_learned"], "source": "mixed"}]


def test_a_prefix_alone_never_invents_a_project() -> None:
    assert merge([], [("memesh-x", "note")]) == []


def test_the_longest_known_label_owns_a_name() -> None:
    labels = {"web": "web~1", "web-api": "web-api~2"}
    assert prefix_owner("web-api-timeouts", labels) == "web-api~2"
    assert prefix_owner("webapi", labels) is None


def test_projects_are_listed_largest_first() -> None:
    listing = merge([("b", "note", 1), ("a", "note", 5)], [])
    assert [row["name"] for row in listing] == ["a", "b"]


def test_a_prefix_two_untagged_memories_share_is_a_prefix_project() -> None:
    listing = merge([], [("billing-retry-policy", "decision"), ("billing-refunds", "note"), ("misc", "note")])
    assert listing == [{"name": "billing", "count": 2, "types": ["decision", "note"], "source": "prefix"}]


def test_generated_name_kinds_and_short_prefixes_name_no_project() -> None:
    untagged = [("lesson-a-1", "lesson_learned"), ("lesson-b-2", "lesson_learned"), ("ui-x", "note"), ("ui-y", "note")]
    assert merge([], untagged) == []


def test_the_working_folders_bare_label_names_its_project_and_any_other_project_is_kept() -> None:
    from memesh.core.keys import checked_project

    here = "myapp~" + "a" * 32
    assert checked_project("myapp", lambda: here).unwrap() == here
    assert checked_project("other", lambda: here).unwrap() == "other"
    assert checked_project("myapp~" + "b" * 32, lambda: here).unwrap() == "myapp~" + "b" * 32
    assert checked_project(None, lambda: here).unwrap() == here
