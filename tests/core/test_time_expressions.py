"""Time said in words, resolved against a given clock: the dates and relative expressions recall reads (issue 38)."""

from __future__ import annotations

from datetime import UTC, date, datetime

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memesh.core.time_expressions import created_range, find, parse_bound

# A Friday, mid-afternoon UTC.
NOW = datetime(2023, 10, 20, 15, 30, tzinfo=UTC)


def window(text: str) -> tuple[str, str, str]:
    said = find(text, NOW)
    assert said is not None, text
    start, end = said.bonus_window()
    return said.text, start.isoformat(), end.isoformat()


@pytest.mark.parametrize(
    ("question", "expression", "start", "end"),
    [
        ("Which city was Calvin in on October 3, 2023?", "October 3, 2023", "2023-10-03", "2023-10-12"),
        ("what happened on the 3rd of October", "3rd of October", "2023-10-03", "2023-10-12"),
        ("le 3 octobre 2023, qu'avons-nous décidé ?", "3 octobre 2023", "2023-10-03", "2023-10-12"),
        ("Was haben wir am 3. Oktober 2023 beschlossen?", "3. Oktober 2023", "2023-10-03", "2023-10-12"),
        ("¿qué pasó el 3 de octubre de 2023?", "3 de octubre de 2023", "2023-10-03", "2023-10-12"),
        ("что было 3 октября 2023", "3 октября 2023", "2023-10-03", "2023-10-12"),
        ("chuyện gì xảy ra ngày 3 tháng 10 năm 2023", "ngày 3 tháng 10 năm 2023", "2023-10-03", "2023-10-12"),
        ("2023年10月3日に何を決めた", "2023年10月3日", "2023-10-03", "2023-10-12"),
        ("the deploy of 2023-10-03", "2023-10-03", "2023-10-03", "2023-10-12"),
        ("What setback did Melanie face in October 2023?", "in October 2023", "2023-10-01", "2023-11-09"),
        ("what did we ship in March", "in March", "2023-03-01", "2023-04-09"),
        ("what did we decide yesterday", "yesterday", "2023-10-19", "2023-10-21"),
        ("the kitchen appliance I bought 10 days ago", "10 days ago", "2023-10-08", "2023-10-13"),
        ("where did I go four weeks ago", "four weeks ago", "2023-09-15", "2023-09-30"),
        ("a couple of days ago we fixed it", "a couple of days ago", "2023-10-17", "2023-10-20"),
        ("what did we decide last week about auth?", "last week", "2023-10-09", "2023-10-17"),
        ("how much did I spend during the past month", "past month", "2023-09-20", "2023-10-22"),
        ("qu'ai-je acheté il y a 3 jours", "il y a 3 jours", "2023-10-16", "2023-10-19"),
        ("was war vor 3 Tagen", "vor 3 Tagen", "2023-10-16", "2023-10-19"),
        ("cosa ho comprato 3 giorni fa", "3 giorni fa", "2023-10-16", "2023-10-19"),
        ("我3天前买了什么", "3天前", "2023-10-16", "2023-10-19"),
    ],
)
def test_a_question_names_a_time_that_becomes_a_window_of_days(
    question: str, expression: str, start: str, end: str
) -> None:
    assert window(question) == (expression, start, end)


def test_a_date_without_a_year_is_the_latest_one_not_after_the_clock() -> None:
    assert window("what happened on 25 December")[1] == "2022-12-25"
    assert window("what happened on 3 October")[1] == "2023-10-03"


@pytest.mark.parametrize(
    "question",
    [
        "may I ask what we chose for auth?",
        "When did Caroline go to the LGBTQ support group?",
        "we march on",
        "I have 3 apples",
        "",
        "???",
    ],
)
def test_a_question_that_names_no_time_has_no_window(question: str) -> None:
    assert find(question, NOW) is None


def test_the_expression_words_are_given_as_query_terms() -> None:
    said = find("What did Melanie paint on 8 May, 2023?", NOW)
    assert said is not None
    assert said.words == ("8", "may", "2023")


@given(st.text(max_size=300))
def test_reading_a_time_never_raises_on_any_text(text: str) -> None:
    said = find(text, NOW)
    if said is not None:
        start, end = said.bonus_window()
        assert start < end
    parse_bound(text, NOW)


@given(st.lists(st.sampled_from(["3", "10", "days", "ago", "last", "in", "May", "2023", "of", "the", "x"]), max_size=8))
def test_reading_time_words_in_any_order_never_raises(words: list[str]) -> None:
    find(" ".join(words), NOW)
    parse_bound(" ".join(words), NOW)


def test_an_iso_date_bound_is_that_whole_day_and_a_date_time_that_second() -> None:
    day = parse_bound("2023-10-01", NOW)
    assert day is not None
    assert (day.start, day.end) == (datetime(2023, 10, 1, tzinfo=UTC), datetime(2023, 10, 2, tzinfo=UTC))
    moment = parse_bound("2023-10-01T10:00:00+02:00", NOW)
    assert moment is not None
    assert moment.start == datetime(2023, 10, 1, 8, tzinfo=UTC)


def test_a_bound_must_be_one_expression_and_nothing_else() -> None:
    assert parse_bound("last week", NOW) is not None
    assert parse_bound("the auth decision last week", NOW) is None
    assert parse_bound("soon", NOW) is None


def test_since_and_until_become_the_stored_created_at_range() -> None:
    assert created_range("last week", "yesterday", NOW) == ("2023-10-09 00:00:00", "2023-10-20 00:00:00")
    assert created_range(None, "2023-10-01", NOW) == (None, "2023-10-02 00:00:00")


def test_a_bad_bound_names_its_field() -> None:
    with pytest.raises(ValueError, match=r"^since: "):
        created_range("whenever", None, NOW)
    with pytest.raises(ValueError, match=r"^until: "):
        created_range("2023-10-05", "2023-10-01", NOW)


def test_months_and_years_back_land_on_their_calendar_days() -> None:
    said = find("what did I buy 2 months ago", NOW)
    assert said is not None
    assert said.start == date(2023, 8, 20)
