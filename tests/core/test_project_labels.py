"""keys.project_for: a project label typed where an id is asked, read against the working folder and the stored
projects; commits.implemented: the memories a commit message names."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st
from returns.result import Failure, Success

from memesh.core.commits import MAX_IMPLEMENTS, implemented
from memesh.core.keys import checked_project, project_for

SHOP_A = "shop~" + "a" * 32
SHOP_B = "shop~" + "b" * 32
WEB = "web~" + "c" * 32
labels = st.text(st.characters(codec="utf-8", exclude_characters="~\x00"), min_size=1, max_size=30)


def test_an_id_is_itself_whatever_is_stored() -> None:
    assert project_for(SHOP_A, SHOP_B, [SHOP_B]) == Success(SHOP_A)


def test_the_working_folders_project_wins_for_its_label() -> None:
    assert project_for("shop", SHOP_B, [SHOP_A, SHOP_B]) == Success(SHOP_B)


def test_the_one_stored_project_with_the_label_is_named() -> None:
    assert project_for("shop", WEB, [SHOP_A, WEB]) == Success(SHOP_A)
    assert project_for("shop", None, [SHOP_A]) == Success(SHOP_A)


def test_a_label_two_stored_projects_share_is_refused_with_both_ids() -> None:
    refused = project_for("shop", WEB, [SHOP_A, SHOP_B, WEB])
    assert isinstance(refused, Failure)
    assert refused.failure().startswith('project: "shop" is the label of 2 projects')
    assert SHOP_A in refused.failure() and SHOP_B in refused.failure()


def test_a_name_no_project_has_as_label_is_kept_as_a_plain_project() -> None:
    assert project_for("billing", WEB, [SHOP_A, WEB, "billing"]) == Success("billing")
    assert project_for("new-thing", None, []) == Success("new-thing")


@given(label=labels, hexes=st.lists(st.text("0123456789abcdef", min_size=32, max_size=32), min_size=0, max_size=4))
def test_a_label_resolves_to_one_of_its_projects_or_is_refused_naming_them_all(label: str, hexes: list[str]) -> None:
    stored = sorted({f"{label}~{h}" for h in hexes})
    answer = project_for(label, None, stored)
    if len(stored) > 1:
        assert isinstance(answer, Failure) and all(project in answer.failure() for project in stored)
    else:
        assert answer == Success(stored[0] if stored else label)


def test_checked_project_asks_the_stored_projects_only_for_a_label() -> None:
    asked: list[int] = []

    def known() -> list[str]:
        asked.append(1)
        return [SHOP_A]

    assert checked_project(SHOP_B, lambda: WEB, known) == Success(SHOP_B)
    assert asked == []
    assert checked_project("shop", lambda: WEB, known) == Success(SHOP_A)
    assert asked == [1]


def test_a_commit_message_names_memories_by_name_or_handle_each_once() -> None:
    message = "Use WAL [mem:use-wal] and [mem: 42 ]\n\nCloses [mem:use-wal]; not [mem:] nor mem:x"
    assert implemented(message) == ["use-wal", "42"]


@given(st.text(max_size=300))
def test_any_commit_message_names_at_most_ten_memories_none_blank(message: str) -> None:
    named = implemented(message)
    assert len(named) <= MAX_IMPLEMENTS and all(name.strip() == name and name for name in named)
