"""How a memory reads as a file: observations in insertion order, lines mapped back to the memory owning them."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st
from returns.result import Failure, Success

from memesh.core import memory_lines
from memesh.core.memory_lines import Edit, line_owners
from memesh.errors import ErrorCode

PATH = "/memories/team/x.md"


def test_a_multi_line_observation_owns_each_of_its_lines() -> None:
    assert line_owners(["a", "b1\nb2\nb3", "c"]) == [0, 1, 1, 1, 2]


def test_view_numbers_lines_six_wide_and_a_range_reads_part() -> None:
    full = memory_lines.view(PATH, ["one", "two\nthree"], None).unwrap()
    assert full.endswith("     1\tone\n     2\ttwo\n     3\tthree")
    assert memory_lines.view(PATH, ["one", "two\nthree"], (2, -1)).unwrap().endswith("     2\ttwo\n     3\tthree")


def test_a_view_range_outside_the_file_is_refused() -> None:
    for bad_range in [(0, 1), (3, 4), (2, 1), (1, 9)]:
        match memory_lines.view(PATH, ["a", "b"], bad_range):
            case Failure(error):
                assert error.code == ErrorCode.BAD_BODY
            case _:
                raise AssertionError(bad_range)


def test_a_long_memory_is_cut_at_a_line_and_says_how_to_read_on() -> None:
    lines = ["x" * 9000, "y" * 9000, "z"]
    shown = memory_lines.view(PATH, lines, None).unwrap()
    assert "y" * 9000 not in shown
    assert "view_range [2, -1]" in shown


def test_insert_after_the_second_line_of_a_three_line_memory_goes_after_the_whole_memory() -> None:
    edit = memory_lines.insert(PATH, ["a", "b1\nb2\nb3", "c"], 3, "new\n").unwrap()
    assert edit.observations == ["a", "b1\nb2\nb3", "new", "c"]
    assert edit.line == 5


def test_insert_at_zero_prepends_and_at_the_end_appends() -> None:
    assert memory_lines.insert(PATH, ["a", "b"], 0, "z").unwrap().observations == ["z", "a", "b"]
    assert memory_lines.insert(PATH, ["a", "b"], 2, "z").unwrap().observations == ["a", "b", "z"]
    assert memory_lines.insert(PATH, [], 0, "z").unwrap().observations == ["z"]


def test_insert_outside_the_file_or_of_blank_text_is_refused() -> None:
    assert isinstance(memory_lines.insert(PATH, ["a"], 2, "z"), Failure)
    assert isinstance(memory_lines.insert(PATH, ["a"], -1, "z"), Failure)
    assert isinstance(memory_lines.insert(PATH, ["a"], 1, "  \n"), Failure)


def test_an_ambiguous_old_str_is_refused_with_the_line_of_every_occurrence() -> None:
    match memory_lines.str_replace(PATH, ["use x", "keep", "x again\nand x"], "x", "y"):
        case Failure(error):
            assert error.code == ErrorCode.OPERATION_FAILED
            assert "in lines: 1, 3, 4." in error.message
        case _:
            raise AssertionError("edited an ambiguous match")


def test_an_absent_old_str_is_refused() -> None:
    assert isinstance(memory_lines.str_replace(PATH, ["a"], "zzz", "y"), Failure)


def test_str_replace_within_one_line_rewrites_only_that_memory() -> None:
    assert memory_lines.str_replace(PATH, ["a", "use pg", "c"], "pg", "sqlite") == Success(
        Edit(["a", "use sqlite", "c"], 2)
    )


def test_str_replace_that_adds_a_line_break_makes_two_memories() -> None:
    edit = memory_lines.str_replace(PATH, ["a", "b"], "b", "b\nc").unwrap()
    assert edit.observations == ["a", "b", "c"]


def test_str_replace_inside_a_multi_line_memory_keeps_it_one_memory() -> None:
    edit = memory_lines.str_replace(PATH, ["a", "b1\nb2"], "b2", "B2\nB3").unwrap()
    assert edit.observations == ["a", "b1\nB2\nB3"]


def test_str_replace_across_a_line_break_joins_the_lines_it_spans() -> None:
    assert memory_lines.str_replace(PATH, ["a", "b", "c"], "a\nb", "ab").unwrap().observations == ["ab", "c"]
    assert memory_lines.str_replace(PATH, ["a", "b"], "\n", " ").unwrap().observations == ["a b"]


def test_str_replace_without_new_text_deletes_and_an_emptied_line_goes() -> None:
    assert memory_lines.str_replace(PATH, ["a", "b", "c"], "b\n", "").unwrap().observations == ["a", "c"]
    assert memory_lines.str_replace(PATH, ["a", "b"], "b", "").unwrap().observations == ["a"]


def test_a_memory_past_100_lines_or_a_line_past_10000_characters_is_refused() -> None:
    assert isinstance(memory_lines.too_big(["x"] * 101), Failure)
    assert isinstance(memory_lines.too_big(["x" * 10_001]), Failure)
    assert memory_lines.too_big(["x"] * 100) == Success(["x"] * 100)


def test_blank_lines_of_written_text_are_not_memories() -> None:
    assert memory_lines.file_lines("a\n\n  \nb\n") == ["a", "b"]


_line = st.text(st.characters(blacklist_characters="\n", blacklist_categories=["Cs"]), min_size=1, max_size=12).filter(
    str.strip
)


@given(st.lists(_line, min_size=1, max_size=8), st.data())
def test_str_replace_renders_exactly_the_text_replaced(observations: list[str], data: st.DataObject) -> None:
    body = memory_lines.render(observations)
    start = data.draw(st.integers(0, len(body) - 1))
    old = body[start : data.draw(st.integers(start + 1, len(body)))]
    new = data.draw(st.text(st.characters(blacklist_categories=["Cs"]), max_size=10))
    match memory_lines.str_replace(PATH, observations, old, new):
        case Success(edit):
            expected = [line for line in body.replace(old, new, 1).split("\n") if line.strip()]
            assert memory_lines.render(edit.observations).split("\n") == (expected or [""])
        case Failure(error):  # ambiguous (overlapping occurrences count too) or too big
            overlapping = sum(1 for index in range(len(body)) if body.startswith(old, index))
            assert overlapping > 1 or error.code == ErrorCode.BAD_BODY
