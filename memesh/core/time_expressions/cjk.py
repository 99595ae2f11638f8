"""The Chinese, Japanese and Korean forms, read without word breaks: `2023年10月3日`, `2023年10月`, `3天前`,
`昨天`, `上周`, `先月`, `작년`, …"""

from __future__ import annotations

import re
from datetime import date, timedelta

from memesh.core.time_expressions.window import Expression, ago, expression, latest, month_end, safe_date, unit_window

_DATE = re.compile(r"(?:(\d{4})\s*年\s*)?(\d{1,2})\s*月\s*(\d{1,2})\s*[日号]")
_MONTH = re.compile(r"(\d{4})\s*年\s*(\d{1,2})\s*月(?!\s*\d)")
_AGO = re.compile(r"(\d+)\s*(天|日|周|週|星期|个月|個月|か月|ヶ月|年|일|주|달|개월)\s*(?:前|전)")
_WORDS: dict[str, tuple[int, int]] = {  # text → (days before today it starts, length in days); 0: today
    "前天": (2, 1),
    "一昨日": (2, 1),
    "昨天": (1, 1),
    "昨日": (1, 1),
    "어제": (1, 1),
    "今天": (0, 1),
    "今日": (0, 1),
    "오늘": (0, 1),
}
_LAST = re.compile(r"上周|上週|上星期|先週|지난\s*주|上个月|上個月|先月|지난\s*달|去年|昨年|작년")
_UNIT = {"天": 1, "日": 1, "일": 1, "周": 7, "週": 7, "星期": 7, "주": 7, "年": 365}  # any other: a month


def cjk(text: str, today: date) -> Expression | None:
    """The first date or relative expression of a Chinese, Japanese or Korean text (read without word breaks)."""
    found: list[tuple[int, Expression]] = []
    for match in _DATE.finditer(text):
        year, month, day = match.group(1), int(match.group(2)), int(match.group(3))
        at = safe_date(int(year), month, day) if year else (latest(month, day, today) if 1 <= month <= 12 else None)
        if at is not None:
            found.append((match.start(), expression(match.group(), "absolute", at, at + timedelta(days=1))))
    for match in _MONTH.finditer(text):
        if 1 <= (month := int(match.group(2))) <= 12:
            first = date(int(match.group(1)), month, 1)
            found.append((match.start(), expression(match.group(), "absolute", first, month_end(first))))
    for match in _AGO.finditer(text):
        count, unit_text = int(match.group(1)), match.group(2)
        unit = _UNIT.get(unit_text, 30)
        hit = ago(0, 0, count, unit, today)
        if hit is not None:
            found.append((match.start(), expression(match.group(), "ago", hit.start, hit.end, hit.slack)))
    for word, (back, length) in _WORDS.items():
        where = text.find(word)
        if where >= 0:
            said = today - timedelta(days=back)
            found.append((where, expression(word, "relative", said, said + timedelta(days=length))))
    for match in _LAST.finditer(text):
        written = match.group()
        unit = 7 if any(mark in written for mark in "周週星주") else 365 if any(m in written for m in "年작") else 30
        start, end = unit_window(unit, 1, today)
        found.append((match.start(), expression(written, "relative", start, end)))
    return min(found, key=lambda pair: pair[0])[1] if found else None
