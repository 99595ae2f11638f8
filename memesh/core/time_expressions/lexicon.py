"""The words time is said with, folded as the index folds them, and the readers of one word as a day, a year or an
amount. Data, and three lookups."""

from __future__ import annotations

import re
from collections.abc import Iterable

from memesh.core.terms import fold


def _fold_all(text: str) -> frozenset[str]:
    return frozenset(fold(word) for word in text.split())


def _fold_all_list(text: str) -> list[str]:
    return [fold(word) for word in text.split()]


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
# Words before a month that make "in March" a month (in, during, im, en, em, nel, w, в, vào; tháng 10 in Vietnamese).
MONTH_PREPOSITIONS = _fold_all("in during im en em nel w в vao thang")
DAY_LINKS = _fold_all("of de del di the")  # "3rd of October", "3 de octubre", "the 3rd"
YEAR_LINKS = _fold_all("de del nam")  # "3 de octubre de 2023", "thang 10 nam 2023"
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
AGO_AFTER = _fold_all("ago fa geleden sedan temu назад truoc atras")
AGO_BEFORE: tuple[tuple[str, ...], ...] = (("il", "y", "a"), ("vor",), ("hace",), ("ha",), ("for",))
# "last week", "past month", "previous year": the unit before now; `past`/`last` with a number: that many units.
LAST_BEFORE = _fold_all("last past previous letzte letzten letzter vergangene vergangenen vorige afgelopen forra")
LAST_AFTER = _fold_all("derniere dernier passe passee pasado pasada passado passada scorso scorsa truoc")
THIS_BEFORE = _fold_all("this cette ce diese diesen dieses esta este deze denna detta")
THIS_AFTER = _fold_all("nay")  # vi "tuần này", "tháng này"
WEEKDAYS: dict[str, int] = _table(
    enumerate(("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"))
)

LAST_PHRASES: dict[tuple[str, ...], int] = {
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
DAY_WORD_LENGTHS = sorted({len(key) for key in DAY_WORDS}, reverse=True)

# The words an expression can begin with (beside a number): the scan looks no further at any other word.
STARTERS: frozenset[str] = frozenset(
    {
        *MONTHS,
        *MONTH_PREPOSITIONS,
        "ngay",
        *(key[0] for key in DAY_WORDS),
        *(key[0] for key in LAST_PHRASES),
        *(prefix[0] for prefix in AGO_BEFORE),
        *NUMBER_WORDS,
        *UNITS,
        *LAST_BEFORE,
        *THIS_BEFORE,
    }
)


def day_of(word: str) -> int | None:
    """A day of the month (`3`, `3rd`, `3e`, `3º`), 1–31; None for any other word."""
    match = _ORDINAL.fullmatch(word)
    if match is None:
        return None
    day = int(match.group(1))
    return day if 1 <= day <= 31 else None


def year_of(word: str) -> int | None:
    """A year from 1900 to 2099 written in four digits; None for any other word."""
    return int(word) if _YEAR.fullmatch(word) else None


def number_of(word: str) -> int | None:
    """An amount written in at most four digits or as a number word (`three`, `drei`, `a couple`); None else."""
    if word.isdigit() and len(word) <= 4:
        return int(word)
    return NUMBER_WORDS.get(word)
