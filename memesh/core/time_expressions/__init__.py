"""Time said in words: dates and relative expressions resolved against a clock into windows of days. Pure.

Two readers use it:
- recall's `since` / `until` filters (`parse_bound`, `created_range`): an ISO date or date-time, or ONE expression
  that is the whole value ("yesterday", "10 days ago", "last week", "past month", "in March", "3 October 2023");
- recall modes `broad` and `hybrid` (`find`): the first expression a question holds ("Which city was Calvin in on
  October 3, 2023?", "the kitchen appliance I bought 10 days ago"), so memories of that time get a bounded bonus.

Absolute dates are read as day–month–year in either order, with the month named in the languages the function-word
lists cover (English, French, German, Spanish, Portuguese, Italian, Dutch, Swedish, Polish, Russian; Vietnamese
`ngày 3 tháng 10 năm 2023`; Chinese/Japanese `2023年10月3日`), or written as ISO `2023-10-03`. Relative
expressions: yesterday, today, N days/weeks/months/years ago, last/past/this week/month/year, past N days, last
<weekday> — in English, and the common forms of the other languages (`il y a 3 jours`, `vor 3 Tagen`, `hace 3
días`, `3 giorni fa`, `3 dagen geleden`, `för 3 dagar sedan`, `3 dni temu`, `3 дня назад`, `3 ngày trước`, `3天前`,
`昨天`, `先週`, …). A month or a day without a year is the latest one not after the clock's day.

Every window is a half-open range of UTC days [start, end): the memories recall stores carry UTC times. Nothing here
raises on any text (a property test holds it to that).

The modules, each depending only on those above it:
- `lexicon`: the words (month, unit, number, weekday and "ago" / "last" / "this" words, the day words) folded as
  the index folds, and the readers of one word as a day, a year or an amount;
- `window`: what is found (`Expression`, the token span `Hit`), the calendar arithmetic that turns an amount of
  units into days, and the bonus window recall reads;
- `absolute`: a date or month at a word (`3 October 2023`, `October 3, 2023`, `in March`, Vietnamese) or ISO;
- `relative`: a relative expression at a word ("yesterday", "10 days ago", "last week", "past month", …);
- `cjk`: the Chinese, Japanese and Korean forms, read without word breaks;
- `reading`: the scan of a text for its first expression (`find`) and the `since` / `until` bounds.
"""

from __future__ import annotations

from memesh.core.time_expressions.reading import Bound, created_range, find, parse_bound, stored_time
from memesh.core.time_expressions.window import ABSOLUTE_AFTER_DAYS, RELATIVE_AFTER_DAYS, Expression, Kind

__all__ = [
    "ABSOLUTE_AFTER_DAYS",
    "RELATIVE_AFTER_DAYS",
    "Bound",
    "Expression",
    "Kind",
    "created_range",
    "find",
    "parse_bound",
    "stored_time",
]
