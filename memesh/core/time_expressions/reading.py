"""Reading a text for time: the first expression a question holds (`find`), and recall's `since` / `until` bounds,
each an ISO date, an ISO date-time or one expression that is the whole value."""

from __future__ import annotations

import re
from datetime import UTC, date, datetime, timedelta

from memesh.core.terms import fold
from memesh.core.time_expressions.absolute import absolute_at, iso_date
from memesh.core.time_expressions.cjk import cjk
from memesh.core.time_expressions.lexicon import STARTERS
from memesh.core.time_expressions.relative import relative_at
from memesh.core.time_expressions.window import Expression, expression
from memesh.records import dataclass

_TOKEN = re.compile(r"[^\W_]+")


def _scan(text: str, today: date, *, whole: bool) -> Expression | None:
    """The first expression of `text` (the earliest of an ISO date and one read from its words, else a CJK form);
    with `whole`, only an expression that is all of the text."""
    tokens = list(_TOKEN.finditer(text))
    words = [fold(token.group()) for token in tokens]
    found: list[tuple[int, Expression]] = []
    iso = iso_date(text)
    if iso is not None:
        found.append(iso)
    for i, word in enumerate(words):
        if found and tokens[i].start() >= found[0][0]:
            break
        if word not in STARTERS and not word[0].isdigit():
            continue
        hit = absolute_at(words, i, today) or relative_at(words, i, today)
        if hit is None or hit.last <= hit.first:
            continue
        if whole and (hit.first != 0 or hit.last != len(words)):
            continue
        said = text[tokens[hit.first].start() : tokens[hit.last - 1].end()]
        found.append((tokens[i].start(), expression(said, hit.kind, hit.start, hit.end, hit.slack)))
        break
    if not found:
        if text.isascii():  # every form cjk reads has a CJK character
            return None
        return cjk(text, today) if not whole or _cjk_only(text, today) else None
    return min(found, key=lambda pair: pair[0])[1]


def _cjk_only(text: str, today: date) -> bool:
    said = cjk(text, today)
    return said is not None and said.text.strip() == text.strip()


def find(text: str, now: datetime) -> Expression | None:
    """The first date or time expression in a question, resolved against `now` (its UTC day); None when there is
    none. Never raises."""
    if len(text) > 2_000:  # a pasted page is not a question about a time; its first words still are searched
        text = text[:2_000]
    try:
        return _scan(text, now.astimezone(UTC).date(), whole=False)
    except (ValueError, OverflowError):  # a date past the calendar's range ("10000 years ago")
        return None


@dataclass(frozen=True)
class Bound:
    """A `since` / `until` value resolved: the instants [start, end) it names, in UTC."""

    start: datetime
    end: datetime
    expression: Expression | None = None


def _midnight(day: date) -> datetime:
    return datetime(day.year, day.month, day.day, tzinfo=UTC)


def parse_bound(value: str, now: datetime) -> Bound | None:
    """An ISO date (`2026-03-01`: that day), an ISO date-time (`2026-03-01T09:30:00Z`, no zone: UTC; that second),
    or one time expression that is the whole value ("yesterday", "10 days ago", "last week", "in March"); None when
    it is none of them."""
    text = value.strip()
    if not text or len(text) > 100:
        return None
    try:
        moment = datetime.fromisoformat(text.replace("Z", "+00:00").replace("z", "+00:00"))
    except ValueError:
        moment = None
    if moment is not None:
        if len(text) == 10:  # a date alone: that whole day
            day = moment.date()
            return Bound(_midnight(day), _midnight(day) + timedelta(days=1))
        moment = (moment if moment.tzinfo else moment.replace(tzinfo=UTC)).astimezone(UTC).replace(microsecond=0)
        return Bound(moment, moment + timedelta(seconds=1))
    try:
        said = _scan(text, now.astimezone(UTC).date(), whole=True)
    except (ValueError, OverflowError):
        return None
    if said is None:
        return None
    return Bound(_midnight(said.start), _midnight(said.end), said)


def stored_time(moment: datetime) -> str:
    """`YYYY-MM-DD HH:MM:SS` UTC, the form created_at is stored in (memesh.model.sqlite_time)."""
    return moment.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S")


def created_range(since: str | None, until: str | None, now: datetime) -> tuple[str | None, str | None]:
    """recall's `since` / `until` as the created_at range they keep, [since's start, until's end) in stored form;
    ValueError naming the field (`"since: …"`) for a value that is neither an ISO date or date-time nor one time
    expression, or a `since` after the end of `until`."""
    low: datetime | None = None
    high: datetime | None = None
    for field_name, value in (("since", since), ("until", until)):
        if value is None:
            continue
        bound = parse_bound(value, now)
        if bound is None:
            raise ValueError(
                f"{field_name}: not a date or time: give an ISO date (2026-03-01) or date-time "
                f"(2026-03-01T09:30:00Z), or an expression such as yesterday, 10 days ago, last week, in March"
            )
        if field_name == "since":
            low = bound.start
        else:
            high = bound.end
    if low is not None and high is not None and low >= high:
        raise ValueError("until: ends before since begins, so no memory could match")
    return (None if low is None else stored_time(low)), (None if high is None else stored_time(high))
