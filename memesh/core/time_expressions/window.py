"""What a time expression resolves to: its window of days, and the calendar arithmetic that gets there.

An expression names days [start, end) (UTC); recall gives a memory dated in its `bonus_window` a bonus, which
reaches past what was said, since what happened on a day is often told the day after.
"""

from __future__ import annotations

import calendar
from datetime import date, timedelta
from typing import Literal

from memesh.core.terms import query_terms
from memesh.records import dataclass

Kind = Literal["absolute", "relative", "ago"]

# How far past an absolute date a memory may be dated and still be "of" it: the one that answers "where was Calvin
# on October 3" is often the session of the day after, saying "yesterday" (issue 38 measured [date, date + 8 days]).
ABSOLUTE_AFTER_DAYS = 8
# A relative window other than "N units ago" reaches this many days past its end (said the day after).
RELATIVE_AFTER_DAYS = 1


@dataclass(frozen=True)
class Expression:
    """One expression found: the text as written, its words (folded, as query terms are), what kind it is, and the
    days it names, [start, end). `slack`: how many days around an "N units ago" day it is read loosely."""

    text: str
    words: tuple[str, ...]
    kind: Kind
    start: date
    end: date
    slack: int = 0

    def bonus_window(self) -> tuple[date, date]:
        """The days a memory may be dated in to count as of this time, [start, end)."""
        if self.kind == "absolute":
            return self.start, self.end + timedelta(days=ABSOLUTE_AFTER_DAYS)
        if self.kind == "ago":
            return self.start - timedelta(days=self.slack), self.end + timedelta(days=self.slack)
        return self.start, self.end + timedelta(days=RELATIVE_AFTER_DAYS)


def expression(text: str, kind: Kind, start: date, end: date, slack: int = 0) -> Expression:
    """The expression written `text`, its words split and folded as a query's are."""
    return Expression(text, tuple(query_terms(text)), kind, start, end, slack)


@dataclass(frozen=True)
class Hit:
    """An expression found among a text's words: the token indices [first, last) it spans and what it names."""

    first: int
    last: int
    kind: Kind
    start: date
    end: date
    slack: int = 0


def safe_date(year: int, month: int, day: int) -> date | None:
    """The date, or None when there is no such day (31 February)."""
    try:
        return date(year, month, day)
    except ValueError:
        return None


def latest(month: int, day: int | None, today: date) -> date | None:
    """The latest date with this month (and day) not after today: a date said without its year is a past one."""
    for year in (today.year, today.year - 1):
        found = safe_date(year, month, day or 1)
        if found is not None and found <= today:
            return found
    return safe_date(today.year - 1, month, day or 1)


def month_end(first: date) -> date:
    """The first day after the month that `first` begins."""
    return first + timedelta(days=calendar.monthrange(first.year, first.month)[1])


def minus_months(day: date, months: int) -> date:
    """The first of the month `months` calendar months before `day`'s."""
    index = day.year * 12 + day.month - 1 - months
    year, month = divmod(index, 12)
    return date(max(year, 1), month + 1, 1)


def unit_window(unit: int, count: int, today: date) -> tuple[date, date]:
    """`count` units back from the start of the current one: a calendar week (from Monday), month or year."""
    if unit == 7:
        monday = today - timedelta(days=today.weekday())
        return monday - timedelta(days=7 * count), monday
    if unit == 30:
        first = today.replace(day=1)
        return minus_months(first, count), first
    if unit == 365:
        first = date(today.year, 1, 1)
        return date(max(first.year - count, 1), 1, 1), first
    return today - timedelta(days=count), today


def ago(first: int, last: int, count: int, unit: int, today: date) -> Hit | None:
    """`count` units (1, 7, 30 or 365 days) before today, as a day read with slack around it; None for an amount
    that is none or past 1,000."""
    if not 0 < count <= 1000:
        return None
    day = today - timedelta(days=count * unit) if unit < 30 else today
    if unit == 30:
        day = minus_months(today, count) + timedelta(days=today.day - 1)
    elif unit == 365:
        day = today - timedelta(days=365 * count)
    slack = {1: max(1, count // 4), 7: max(3, 7 * count // 4), 30: 15, 365: 120}[unit]
    return Hit(first, last, "ago", day, day + timedelta(days=1), slack)
