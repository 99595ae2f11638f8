"""Relative expressions, read from a word on against the clock's day: yesterday and today, N units ago (with the
amount in digits or words, the "before" word after or before it), last / past / previous / this week, month or
year, past N days, last <weekday>, last weekend — in English and the common forms of the other languages."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date, timedelta

from memesh.core.time_expressions import lexicon as words_of
from memesh.core.time_expressions.window import Hit, ago, unit_window


def _day_word(words: Sequence[str], i: int, today: date) -> Hit | None:
    for length in words_of.DAY_WORD_LENGTHS:
        key = tuple(words[i : i + length])
        if len(key) == length and key in words_of.DAY_WORDS:
            day = today - timedelta(days=words_of.DAY_WORDS[key])
            return Hit(i, i + length, "relative", day, day + timedelta(days=1))
    key = tuple(words[i : i + 3])
    if key in words_of.LAST_PHRASES:  # w zeszłym tygodniu, на прошлой неделе
        start, end = unit_window(words_of.LAST_PHRASES[key], 1, today)
        return Hit(i, i + 3, "relative", start, end)
    return None


def _amount_ago(words: Sequence[str], i: int) -> tuple[int, int, int] | None:
    """N units ago starting at token i, with the amount's words ("10 days ago", "a couple of days ago", "a few
    weeks ago", "vor 3 Tagen", "il y a 3 jours"): (the amount, the unit in days, the token after the expression);
    None when the words there do not say it."""
    n = len(words)
    j = i
    for prefix in words_of.AGO_BEFORE:
        if tuple(words[i : i + len(prefix)]) == prefix:
            j = i + len(prefix)
            break
    k = j
    if k < n and words[k] in ("a", "an") and k + 1 < n and words[k + 1] in ("couple", "few"):
        k += 1
    count = words_of.number_of(words[k]) if k < n else None
    if count is None:
        return None
    u = k + 1
    if u < n and words[u] == "of":
        u += 1
    if u < n and words[u] in words_of.UNITS:
        unit = words_of.UNITS[words[u]]
        said_after = u + 1 < n and words[u + 1] in words_of.AGO_AFTER
        if j > i:  # the "before" word came first ("för 3 dagar sedan" says it twice)
            return count, unit, u + 2 if said_after else u + 1
        if said_after:
            return count, unit, u + 2
    return None


def _last_or_this(words: Sequence[str], i: int, today: date) -> Hit | None:
    n = len(words)
    # vi "tuần trước": last week. Only there: "how many months ago" asks for a count, it names no time.
    if words[i] in words_of.UNITS and i + 1 < n and words[i + 1] == "truoc":
        start, end = unit_window(words_of.UNITS[words[i]], 1, today)
        return Hit(i, i + 2, "relative", start, end)
    if words[i] in words_of.LAST_BEFORE and i + 1 < n:
        count = words_of.number_of(words[i + 1])
        if count is not None and i + 2 < n and words[i + 2] in words_of.UNITS and 0 < count <= 1000:  # past 10 days
            days = count * words_of.UNITS[words[i + 2]]
            return Hit(i, i + 3, "relative", today - timedelta(days=days), today + timedelta(days=1))
        if words[i + 1] in words_of.UNITS:
            unit = words_of.UNITS[words[i + 1]]
            if words[i] == "past":  # the past month: the last 30 days up to today
                return Hit(i, i + 2, "relative", today - timedelta(days=unit), today + timedelta(days=1))
            start, end = unit_window(unit, 1, today)
            return Hit(i, i + 2, "relative", start, end)
        if words[i] == "last" and words[i + 1] in words_of.WEEKDAYS:
            back = (today.weekday() - words_of.WEEKDAYS[words[i + 1]] - 1) % 7 + 1
            day = today - timedelta(days=back)
            return Hit(i, i + 2, "relative", day, day + timedelta(days=1))
        if words[i] == "last" and words[i + 1] == "weekend":
            saturday = today - timedelta(days=(today.weekday() - 5) % 7 or 7)
            return Hit(i, i + 2, "relative", saturday, saturday + timedelta(days=2))
    if words[i] in words_of.UNITS and i + 1 < n and words[i + 1] in words_of.LAST_AFTER:  # la semaine dernière
        start, end = unit_window(words_of.UNITS[words[i]], 1, today)
        return Hit(i, i + 2, "relative", start, end)
    if words[i] in words_of.THIS_BEFORE and i + 1 < n and words[i + 1] in words_of.UNITS:
        start, _ = unit_window(words_of.UNITS[words[i + 1]], 0, today)
        return Hit(i, i + 2, "relative", start, today + timedelta(days=1))
    if words[i] in words_of.UNITS and i + 1 < n and words[i + 1] in words_of.THIS_AFTER:  # vi "tuần này"
        start, _ = unit_window(words_of.UNITS[words[i]], 0, today)
        return Hit(i, i + 2, "relative", start, today + timedelta(days=1))
    return None


def relative_at(words: Sequence[str], i: int, today: date) -> Hit | None:
    """A relative expression starting at token i (the words folded), resolved against today; None when none does."""
    said = _day_word(words, i, today)
    if said is not None:
        return said
    amount = _amount_ago(words, i)
    if amount is not None:  # an amount out of range (0, or past 1,000) names no time, and nothing else is read here
        count, unit, last = amount
        return ago(i, last, count, unit, today)
    return _last_or_this(words, i, today)
