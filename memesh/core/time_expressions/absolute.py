"""Absolute dates and months: day–month–year in either order with the month named in a supported language,
Vietnamese `ngày 3 tháng 10 năm 2023`, and ISO `2023-10-03`. A date or month said without its year is the latest
one not after the clock's day; a month named alone ("may I", "to march") counts only after a word like `in`."""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import date, timedelta

from memesh.core.time_expressions import lexicon as words_of
from memesh.core.time_expressions.window import Expression, Hit, expression, latest, month_end, safe_date

_ISO_DATE = re.compile(r"(?<!\d)(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})(?!\d)")


def absolute_at(words: Sequence[str], i: int, today: date) -> Hit | None:
    """A date or month starting at token i: `3 October 2023`, `3rd of October`, `October 3, 2023`, `October 2023`,
    `in March`, `ngay 3 thang 10 nam 2023`, `thang 10`."""
    n = len(words)

    def year_after(j: int) -> tuple[int | None, int]:
        k = j + 1 if j < n and words[j] in words_of.YEAR_LINKS else j
        if k < n and (year := words_of.year_of(words[k])) is not None:
            return year, k + 1
        return None, j

    def day_hit(first: int, month: int, day: int, j: int) -> Hit | None:
        year, after = year_after(j)
        found = safe_date(year, month, day) if year is not None else latest(month, day, today)
        if found is None:
            return None
        return Hit(first, after, "absolute", found, found + timedelta(days=1))

    word = words[i]
    if word == "ngay" and i + 3 < n and words[i + 2] == "thang":  # vi: ngày 3 tháng 10 (năm 2023)
        said_day, said_month = words_of.day_of(words[i + 1]), words_of.number_of(words[i + 3])
        if said_day is not None and said_month is not None and 1 <= said_month <= 12:
            return day_hit(i, said_month, said_day, i + 4)
    day = words_of.day_of(word)
    if day is not None:  # 3 October 2023, 3rd of October, 3 de octubre de 2023
        j = i + 1
        if j < n and words[j] in words_of.DAY_LINKS:
            j += 1
        if j < n and words[j] in words_of.MONTHS:
            return day_hit(i, words_of.MONTHS[words[j]], day, j + 1)
        return None
    start = i
    month: int | None = words_of.MONTHS.get(word)
    after_preposition = False
    if month is None and word in words_of.MONTH_PREPOSITIONS and i + 1 < n:
        if word == "thang" and (number := words_of.number_of(words[i + 1])) is not None and 1 <= number <= 12:
            month = number  # vi: tháng 10 (năm 2023)
        else:
            month = words_of.MONTHS.get(words[i + 1])
        after_preposition = month is not None
        i += 1
    if month is None:
        return None
    j = i + 1
    if j < n and words[j] in words_of.DAY_LINKS and j + 1 < n and words_of.day_of(words[j + 1]) is not None:
        j += 1  # "October the 3rd"
    is_day = j < n and words[start] != "thang" and words_of.year_of(words[j]) is None
    day = words_of.day_of(words[j]) if is_day else None
    if day is not None:
        return day_hit(start, month, day, j + 1)  # October 3, 2023
    year, after = year_after(j)
    if year is not None:
        first = date(year, month, 1)
        return Hit(start, after, "absolute", first, month_end(first))
    if after_preposition:  # a month named alone is a month only after `in` ("may I", "to march")
        found = latest(month, None, today)
        if found is None:
            return None
        return Hit(start, i + 1, "absolute", found, month_end(found))
    return None


def iso_date(text: str) -> tuple[int, Expression] | None:
    """The first ISO date of a text (`2023-10-03`, also with `/` or `.`) and where it starts; None when there is
    none, or it names no day."""
    match = _ISO_DATE.search(text)
    if match is None:
        return None
    at = safe_date(int(match.group(1)), int(match.group(2)), int(match.group(3)))
    if at is None:
        return None
    return match.start(), expression(match.group(), "absolute", at, at + timedelta(days=1))
