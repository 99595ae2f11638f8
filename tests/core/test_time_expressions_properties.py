"""Properties of reading time from free text (issue 38), held over generated input: what is found is what was
written, a date said in any supported language is that day, and a bad bound fails only as the field's ValueError."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memesh.core.time_expressions import created_range, find, parse_bound
from memesh.core.time_expressions.lexicon import MONTHS

NOW = datetime(2023, 10, 20, 15, 30, tzinfo=UTC)
clocks = st.datetimes(min_value=datetime(1990, 1, 1), max_value=datetime(2090, 12, 31), timezones=st.just(UTC))
dates = st.dates(min_value=date(1900, 1, 1), max_value=date(2099, 12, 31))
# Month names by number, in every language the lexicon holds (folded, as a question's words are read).
NAMES: dict[int, list[str]] = {}
for _name, _number in MONTHS.items():
    NAMES.setdefault(_number, []).append(_name)


@given(st.text(max_size=300), clocks)
def test_what_is_found_is_written_in_the_text_and_names_at_least_a_day(text: str, now: datetime) -> None:
    said = find(text, now)
    if said is not None:
        assert said.text in text[:2_000]
        assert said.start < said.end


@given(st.text(max_size=120), st.one_of(st.none(), st.text(max_size=120)))
def test_a_bad_bound_fails_only_as_a_value_error_naming_its_field(since: str, until: str | None) -> None:
    try:
        low, high = created_range(since, until, NOW)
    except ValueError as exc:
        assert str(exc).split(":", 1)[0] in ("since", "until")
    else:
        assert low is None or high is None or low < high


@given(dates, st.text(alphabet=" \t,;:!?()[]\"'-", max_size=20), st.text(max_size=80))
def test_an_iso_date_after_no_word_is_the_first_time_found_and_is_that_day(day: date, before: str, after: str) -> None:
    said = find(f"{before}{day.isoformat()} {after}", NOW)
    assert said is not None
    assert (said.start, said.end) == (day, day + timedelta(days=1))


@given(dates, st.data())
@pytest.mark.parametrize("form", ["{d} {m} {y}", "{m} {d}, {y}", "{d} de {m} de {y}", "{d}. {m} {y}"])
def test_a_day_said_with_its_month_named_in_any_language_is_that_day(form: str, day: date, data: st.DataObject) -> None:
    name = data.draw(st.sampled_from(NAMES[day.month]))
    text = form.format(d=day.day, m=name, y=day.year)
    said = find(f"what happened on {text}?", NOW)
    assert said is not None, text
    assert (said.start, said.kind) == (day, "absolute")
    bound = parse_bound(text, NOW)
    assert bound is not None, text
    assert (bound.start.date(), bound.end.date()) == (day, day + timedelta(days=1))


@given(st.integers(min_value=1, max_value=1000), clocks)
def test_n_days_ago_is_the_day_n_days_before_the_clock(count: int, now: datetime) -> None:
    said = find(f"what did I buy {count} days ago", now)
    assert said is not None
    assert said.start == now.date() - timedelta(days=count)
    start, end = said.bonus_window()
    assert start <= said.start < said.end <= end
