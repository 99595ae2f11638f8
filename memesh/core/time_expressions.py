"""Time said in words: dates and relative expressions resolved against a clock into windows of days. Pure.

Two readers use it:
- recall's `since` / `until` filters (`parse_bound`): an ISO date or date-time, or ONE expression that is the whole
  value ("yesterday", "10 days ago", "last week", "past month", "in March", "3 October 2023");
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
"""

from __future__ import annotations

import calendar
import re
from collections.abc import Iterable, Sequence
from datetime import UTC, date, datetime, timedelta
from typing import Literal

from memesh.core.terms import fold
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


def _fold_all(text: str) -> frozenset[str]:
    return frozenset(fold(word) for word in text.split())


def _table(rows: Iterable[tuple[int, str]]) -> dict[str, int]:
    return {fold(word): number for number, words in rows for word in words.split()}


MONTHS: dict[str, int] = _table(
    enumerate(
        (
            "january jan janvier januar enero janeiro gennaio januari styczen stycznia январь января",
            "february feb fevrier februar febrero fevereiro febbraio februari luty lutego февраль февраля",
            "march mar mars marz maerz marzo marco maart marzec marca март марта",
            "april apr avril abril aprile kwiecien kwietnia апрель апреля",
            "may mai mayo maio maggio mei maj maja май мая",
            "june jun juin juni junio junho giugno czerwiec czerwca июнь июня",
            "july jul juillet juli julio julho luglio lipiec lipca июль июля",
            "august aug aout agosto augustus augusti sierpien sierpnia август августа",
            "september sep sept septembre septiembre setiembre setembro settembre wrzesien wrzesnia сентябрь сентября",
            "october oct octobre oktober octubre outubro ottobre pazdziernik pazdziernika октябрь октября",
            "november nov novembre noviembre novembro listopad listopada ноябрь ноября",
            "december dec decembre dezember diciembre dezembro dicembre grudzien grudnia декабрь декабря",
        ),
        start=1,
    )
)
# Month names that are common words too ("may I", "to march"): read as a month only beside a day, a year or `in`.
_AMBIGUOUS_MONTHS = _fold_all("may mar march jan dec sept aug mai")
# Words before a month that make "in March" a month (in, during, im, en, em, nel, w, в, vào; tháng 10 in Vietnamese).
_MONTH_PREPOSITIONS = _fold_all("in during im en em nel w в vao thang")
_DAY_LINKS = _fold_all("of de del di the")  # "3rd of October", "3 de octubre", "the 3rd"
_YEAR_LINKS = _fold_all("de del nam")  # "3 de octubre de 2023", "thang 10 nam 2023"
_ORDINAL = re.compile(r"(\d{1,2})(?:st|nd|rd|th|er|e|eme|o|a|º|ª)?")
_YEAR = re.compile(r"(19|20)\d\d")

UNITS: dict[str, int] = _table(
    (
        (1, "day days jour jours tag tage tagen dia dias giorno giorni dag dagen dagar dzien dni день дня дней ngay"),
        (
            7,
            "week weeks semaine semaines woche wochen semana semanas settimana settimane weken vecka veckor veckan "
            "tydzien tygodnie tygodni tygodniu неделя недели недель неделю неделе tuan",
        ),
        (
            30,
            "month months mois monat monate monaten monats mes meses mese mesi maand maanden manad manader manaden "
            "miesiac miesiace miesiecy miesiacu месяц месяца месяцев месяце thang",
        ),
        (
            365,
            "year years an ans annee annees jahr jahre jahren ano anos anno anni jaar jaren ar aret rok lata lat roku "
            "год года лет году nam",
        ),
    )
)
NUMBER_WORDS: dict[str, int] = _table(
    (
        (1, "a an one un une ein eine einem einer uno una um uma een en ett jeden jedna один одну одна mot"),
        (2, "two couple deux zwei dos dois due twee tva dwa dwie два две hai"),
        (3, "three few several trois drei tres tre drie tre trzy три ba"),
        (4, "four quatre vier cuatro quatro quattro vier fyra cztery четыре bon"),
        (5, "five cinq funf cinco cinque vijf fem piec пять nam"),
        (6, "six sechs seis sei zes sex szesc шесть sau"),
        (7, "seven sept sieben siete sete sette zeven sju siedem семь bay"),
        (8, "eight huit acht ocho oito otto atta osiem восемь tam"),
        (9, "nine neuf neun nueve nove negen nio dziewiec девять chin"),
        (10, "ten dix zehn diez dez dieci tien tio dziesiec десять muoi"),
        (11, "eleven"),
        (12, "twelve"),
    )
)
# Words that say "before now" after the amount ("3 days ago") or before it ("vor 3 Tagen", "il y a 3 jours").
_AGO_AFTER = _fold_all("ago fa geleden sedan temu назад truoc atras")
_AGO_BEFORE: tuple[tuple[str, ...], ...] = (("il", "y", "a"), ("vor",), ("hace",), ("ha",), ("for",))
# "last week", "past month", "previous year": the unit before now; `past`/`last` with a number: that many units.
_LAST_BEFORE = _fold_all("last past previous letzte letzten letzter vergangene vergangenen vorige afgelopen forra")
_LAST_AFTER = _fold_all("derniere dernier passe passee pasado pasada passado passada scorso scorsa truoc")
_THIS_BEFORE = _fold_all("this cette ce diese diesen dieses esta este deze denna detta")
_THIS_AFTER = _fold_all("nay")  # vi "tuần này", "tháng này"
WEEKDAYS: dict[str, int] = _table(
    enumerate(("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"))
)
_CJK_DATE = re.compile(r"(?:(\d{4})\s*年\s*)?(\d{1,2})\s*月\s*(\d{1,2})\s*[日号]")
_CJK_MONTH = re.compile(r"(\d{4})\s*年\s*(\d{1,2})\s*月(?!\s*\d)")
_CJK_AGO = re.compile(r"(\d+)\s*(天|日|周|週|星期|个月|個月|か月|ヶ月|年|일|주|달|개월)\s*(?:前|전)")
_CJK_WORDS: dict[str, tuple[int, int]] = {  # text → (days before today it starts, length in days); 0: today
    "前天": (2, 1),
    "一昨日": (2, 1),
    "昨天": (1, 1),
    "昨日": (1, 1),
    "어제": (1, 1),
    "今天": (0, 1),
    "今日": (0, 1),
    "오늘": (0, 1),
}
_CJK_LAST = re.compile(r"上周|上週|上星期|先週|지난\s*주|上个月|上個月|先月|지난\s*달|去年|昨年|작년")
_CJK_UNIT = {"天": 1, "日": 1, "일": 1, "周": 7, "週": 7, "星期": 7, "주": 7, "年": 365}
_ISO_DATE = re.compile(r"(?<!\d)(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})(?!\d)")
_TOKEN = re.compile(r"[^\W_]+")


def _fold_all_list(text: str) -> list[str]:
    return [fold(word) for word in text.split()]


_LAST_PHRASES: dict[tuple[str, ...], int] = {
    tuple(_fold_all_list(words)): unit
    for words, unit in (
        ("w zeszlym tygodniu", 7),
        ("w ubieglym tygodniu", 7),
        ("w zeszlym miesiacu", 30),
        ("w ubieglym miesiacu", 30),
        ("w zeszlym roku", 365),
        ("на прошлой неделе", 7),
        ("в прошлом месяце", 30),
        ("в прошлом году", 365),
    )
}
DAY_WORDS: dict[tuple[str, ...], int] = {
    tuple(_fold_all_list(words)): days_before
    for words, days_before in (
        ("the day before yesterday", 2),
        ("yesterday", 1),
        ("hier", 1),
        ("avant hier", 2),
        ("gestern", 1),
        ("vorgestern", 2),
        ("ayer", 1),
        ("anteayer", 2),
        ("ontem", 1),
        ("anteontem", 2),
        ("ieri", 1),
        ("gisteren", 1),
        ("eergisteren", 2),
        ("igår", 1),
        ("i går", 1),
        ("wczoraj", 1),
        ("przedwczoraj", 2),
        ("вчера", 1),
        ("позавчера", 2),
        ("hôm qua", 1),
        ("today", 0),
        ("aujourd hui", 0),
        ("heute", 0),
        ("hoy", 0),
        ("hoje", 0),
        ("oggi", 0),
        ("vandaag", 0),
        ("idag", 0),
        ("i dag", 0),
        ("dzisiaj", 0),
        ("сегодня", 0),
        ("hôm nay", 0),
    )
}
_DAY_WORD_LENGTHS = sorted({len(key) for key in DAY_WORDS}, reverse=True)


# The words an expression can begin with (beside a number): the scan looks no further at any other word.
_STARTERS: frozenset[str] = frozenset(
    {
        *MONTHS,
        *_MONTH_PREPOSITIONS,
        "ngay",
        *(key[0] for key in DAY_WORDS),
        *(key[0] for key in _LAST_PHRASES),
        *(prefix[0] for prefix in _AGO_BEFORE),
        *NUMBER_WORDS,
        *UNITS,
        *_LAST_BEFORE,
        *_THIS_BEFORE,
    }
)


def _day_of(word: str) -> int | None:
    match = _ORDINAL.fullmatch(word)
    if match is None:
        return None
    day = int(match.group(1))
    return day if 1 <= day <= 31 else None


def _year_of(word: str) -> int | None:
    return int(word) if _YEAR.fullmatch(word) else None


def _number_of(word: str) -> int | None:
    if word.isdigit() and len(word) <= 4:
        return int(word)
    return NUMBER_WORDS.get(word)


def _safe_date(year: int, month: int, day: int) -> date | None:
    try:
        return date(year, month, day)
    except ValueError:
        return None


def _latest(month: int, day: int | None, today: date) -> date | None:
    """The latest date with this month (and day) not after today: a date said without its year is a past one."""
    for year in (today.year, today.year - 1):
        found = _safe_date(year, month, day or 1)
        if found is not None and found <= today:
            return found
    return _safe_date(today.year - 1, month, day or 1)


def _month_end(first: date) -> date:
    return first + timedelta(days=calendar.monthrange(first.year, first.month)[1])


def _minus_months(day: date, months: int) -> date:
    index = day.year * 12 + day.month - 1 - months
    year, month = divmod(index, 12)
    return date(max(year, 1), month + 1, 1)


@dataclass(frozen=True)
class _Hit:
    first: int  # token indices [first, last)
    last: int
    kind: Kind
    start: date
    end: date
    slack: int = 0


def _absolute_at(words: Sequence[str], i: int, today: date) -> _Hit | None:
    """A date or month starting at token i: `3 October 2023`, `3rd of October`, `October 3, 2023`, `October 2023`,
    `in March`, `ngay 3 thang 10 nam 2023`, `thang 10`."""
    n = len(words)

    def year_after(j: int) -> tuple[int | None, int]:
        k = j + 1 if j < n and words[j] in _YEAR_LINKS else j
        if k < n and (year := _year_of(words[k])) is not None:
            return year, k + 1
        return None, j

    def day_hit(first: int, month: int, day: int, j: int) -> _Hit | None:
        year, after = year_after(j)
        found = _safe_date(year, month, day) if year is not None else _latest(month, day, today)
        if found is None:
            return None
        return _Hit(first, after, "absolute", found, found + timedelta(days=1))

    word = words[i]
    if word == "ngay" and i + 3 < n and words[i + 2] == "thang":  # vi: ngày 3 tháng 10 (năm 2023)
        said_day, said_month = _day_of(words[i + 1]), _number_of(words[i + 3])
        if said_day is not None and said_month is not None and 1 <= said_month <= 12:
            return day_hit(i, said_month, said_day, i + 4)
    day = _day_of(word)
    if day is not None:  # 3 October 2023, 3rd of October, 3 de octubre de 2023
        j = i + 1
        if j < n and words[j] in _DAY_LINKS:
            j += 1
        if j < n and words[j] in MONTHS:
            return day_hit(i, MONTHS[words[j]], day, j + 1)
        return None
    start = i
    month: int | None = MONTHS.get(word)
    after_preposition = False
    if month is None and word in _MONTH_PREPOSITIONS and i + 1 < n:
        if word == "thang" and (number := _number_of(words[i + 1])) is not None and 1 <= number <= 12:
            month = number  # vi: tháng 10 (năm 2023)
        else:
            month = MONTHS.get(words[i + 1])
        after_preposition = month is not None
        i += 1
    if month is None:
        return None
    j = i + 1
    if j < n and words[j] in _DAY_LINKS and j + 1 < n and _day_of(words[j + 1]) is not None:
        j += 1  # "October the 3rd"
    day = _day_of(words[j]) if j < n and words[start] != "thang" and _year_of(words[j]) is None else None
    if day is not None:
        return day_hit(start, month, day, j + 1)  # October 3, 2023
    year, after = year_after(j)
    if year is not None:
        first = date(year, month, 1)
        return _Hit(start, after, "absolute", first, _month_end(first))
    if after_preposition:  # a month named alone is a month only after `in` ("may I", "to march")
        latest = _latest(month, None, today)
        if latest is None:
            return None
        return _Hit(start, i + 1, "absolute", latest, _month_end(latest))
    return None


def _unit_window(unit: int, count: int, today: date) -> tuple[date, date]:
    """`count` units back from the start of the current one: a calendar week (from Monday), month or year."""
    if unit == 7:
        monday = today - timedelta(days=today.weekday())
        return monday - timedelta(days=7 * count), monday
    if unit == 30:
        first = today.replace(day=1)
        return _minus_months(first, count), first
    if unit == 365:
        first = date(today.year, 1, 1)
        return date(max(first.year - count, 1), 1, 1), first
    return today - timedelta(days=count), today


def _ago(first: int, last: int, count: int, unit: int, today: date) -> _Hit | None:
    if not 0 < count <= 1000:
        return None
    day = today - timedelta(days=count * unit) if unit < 30 else today
    if unit == 30:
        day = _minus_months(today, count) + timedelta(days=today.day - 1)
    elif unit == 365:
        day = today - timedelta(days=365 * count)
    slack = {1: max(1, count // 4), 7: max(3, 7 * count // 4), 30: 15, 365: 120}[unit]
    return _Hit(first, last, "ago", day, day + timedelta(days=1), slack)


def _relative_at(words: Sequence[str], i: int, today: date) -> _Hit | None:
    n = len(words)
    for length in _DAY_WORD_LENGTHS:
        key = tuple(words[i : i + length])
        if len(key) == length and key in DAY_WORDS:
            day = today - timedelta(days=DAY_WORDS[key])
            return _Hit(i, i + length, "relative", day, day + timedelta(days=1))
    for length in (3,):
        key = tuple(words[i : i + length])
        if key in _LAST_PHRASES:
            start, end = _unit_window(_LAST_PHRASES[key], 1, today)
            return _Hit(i, i + length, "relative", start, end)
    # N units ago, with the amount's words: "10 days ago", "a couple of days ago", "a few weeks ago".
    j = i
    for prefix in _AGO_BEFORE:
        if tuple(words[i : i + len(prefix)]) == prefix:
            j = i + len(prefix)
            break
    k = j
    if k < n and words[k] in ("a", "an") and k + 1 < n and words[k + 1] in ("couple", "few"):
        k += 1
    count = _number_of(words[k]) if k < n else None
    if count is not None:
        u = k + 1
        if u < n and words[u] == "of":
            u += 1
        if u < n and words[u] in UNITS:
            unit = UNITS[words[u]]
            if j > i:  # the "before" word came first ("för 3 dagar sedan" says it twice)
                return _ago(i, u + 2 if u + 1 < n and words[u + 1] in _AGO_AFTER else u + 1, count, unit, today)
            if u + 1 < n and words[u + 1] in _AGO_AFTER:
                return _ago(i, u + 2, count, unit, today)
    # vi "tuần trước": last week. Only there: "how many months ago" asks for a count, it names no time.
    if words[i] in UNITS and i + 1 < n and words[i + 1] == "truoc":
        start, end = _unit_window(UNITS[words[i]], 1, today)
        return _Hit(i, i + 2, "relative", start, end)
    if words[i] in _LAST_BEFORE and i + 1 < n:
        count = _number_of(words[i + 1])
        if count is not None and i + 2 < n and words[i + 2] in UNITS and 0 < count <= 1000:  # past 10 days
            days = count * UNITS[words[i + 2]]
            return _Hit(i, i + 3, "relative", today - timedelta(days=days), today + timedelta(days=1))
        if words[i + 1] in UNITS:
            unit = UNITS[words[i + 1]]
            if words[i] == "past":  # the past month: the last 30 days up to today
                return _Hit(i, i + 2, "relative", today - timedelta(days=unit), today + timedelta(days=1))
            start, end = _unit_window(unit, 1, today)
            return _Hit(i, i + 2, "relative", start, end)
        if words[i] == "last" and words[i + 1] in WEEKDAYS:
            back = (today.weekday() - WEEKDAYS[words[i + 1]] - 1) % 7 + 1
            day = today - timedelta(days=back)
            return _Hit(i, i + 2, "relative", day, day + timedelta(days=1))
        if words[i] == "last" and words[i + 1] == "weekend":
            saturday = today - timedelta(days=(today.weekday() - 5) % 7 or 7)
            return _Hit(i, i + 2, "relative", saturday, saturday + timedelta(days=2))
    if words[i] in UNITS and i + 1 < n and words[i + 1] in _LAST_AFTER:  # la semaine dernière, el mes pasado
        start, end = _unit_window(UNITS[words[i]], 1, today)
        return _Hit(i, i + 2, "relative", start, end)
    if words[i] in _THIS_BEFORE and i + 1 < n and words[i + 1] in UNITS:
        start, _ = _unit_window(UNITS[words[i + 1]], 0, today)
        return _Hit(i, i + 2, "relative", start, today + timedelta(days=1))
    if words[i] in UNITS and i + 1 < n and words[i + 1] in _THIS_AFTER:
        start, _ = _unit_window(UNITS[words[i]], 0, today)
        return _Hit(i, i + 2, "relative", start, today + timedelta(days=1))
    return None


def _cjk(text: str, today: date) -> Expression | None:
    """The first date or relative expression of a Chinese, Japanese or Korean text (read without word breaks)."""
    found: list[tuple[int, Expression]] = []
    for match in _CJK_DATE.finditer(text):
        year, month, day = match.group(1), int(match.group(2)), int(match.group(3))
        at = _safe_date(int(year), month, day) if year else (_latest(month, day, today) if 1 <= month <= 12 else None)
        if at is not None:
            found.append((match.start(), _expression(match.group(), "absolute", at, at + timedelta(days=1))))
    for match in _CJK_MONTH.finditer(text):
        if 1 <= (month := int(match.group(2))) <= 12:
            first = date(int(match.group(1)), month, 1)
            found.append((match.start(), _expression(match.group(), "absolute", first, _month_end(first))))
    for match in _CJK_AGO.finditer(text):
        count, unit_text = int(match.group(1)), match.group(2)
        unit = _CJK_UNIT.get(unit_text, 30)
        hit = _ago(0, 0, count, unit, today)
        if hit is not None:
            found.append((match.start(), _expression(match.group(), "ago", hit.start, hit.end, hit.slack)))
    for word, (back, length) in _CJK_WORDS.items():
        where = text.find(word)
        if where >= 0:
            said = today - timedelta(days=back)
            found.append((where, _expression(word, "relative", said, said + timedelta(days=length))))
    for match in _CJK_LAST.finditer(text):
        written = match.group()
        unit = 7 if any(mark in written for mark in "周週星주") else 365 if any(m in written for m in "年작") else 30
        start, end = _unit_window(unit, 1, today)
        found.append((match.start(), _expression(written, "relative", start, end)))
    return min(found, key=lambda pair: pair[0])[1] if found else None


def _expression(text: str, kind: Kind, start: date, end: date, slack: int = 0) -> Expression:
    from memesh.core.terms import query_terms

    return Expression(text, tuple(query_terms(text)), kind, start, end, slack)


def _iso(text: str, today: date) -> tuple[int, Expression] | None:
    match = _ISO_DATE.search(text)
    if match is None:
        return None
    at = _safe_date(int(match.group(1)), int(match.group(2)), int(match.group(3)))
    if at is None:
        return None
    return match.start(), _expression(match.group(), "absolute", at, at + timedelta(days=1))


def _scan(text: str, today: date, *, whole: bool) -> Expression | None:
    tokens = list(_TOKEN.finditer(text))
    words = [fold(token.group()) for token in tokens]
    found: list[tuple[int, Expression]] = []
    iso = _iso(text, today)
    if iso is not None:
        found.append(iso)
    for i, word in enumerate(words):
        if found and tokens[i].start() >= found[0][0]:
            break
        if word not in _STARTERS and not word[0].isdigit():
            continue
        hit = _absolute_at(words, i, today) or _relative_at(words, i, today)
        if hit is None or hit.last <= hit.first:
            continue
        if whole and (hit.first != 0 or hit.last != len(words)):
            continue
        said = text[tokens[hit.first].start() : tokens[hit.last - 1].end()]
        found.append((tokens[i].start(), _expression(said, hit.kind, hit.start, hit.end, hit.slack)))
        break
    if not found:
        if text.isascii():  # every form _cjk reads has a CJK character
            return None
        return _cjk(text, today) if not whole or _cjk_only(text, today) else None
    return min(found, key=lambda pair: pair[0])[1]


def _cjk_only(text: str, today: date) -> bool:
    expression = _cjk(text, today)
    return expression is not None and expression.text.strip() == text.strip()


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
        expression = _scan(text, now.astimezone(UTC).date(), whole=True)
    except (ValueError, OverflowError):
        return None
    if expression is None:
        return None
    return Bound(_midnight(expression.start), _midnight(expression.end), expression)


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
