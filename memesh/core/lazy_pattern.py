"""Regular expressions compiled when first used, and the cheap test that lets ASCII text skip them.

Compiling a character class that reaches past Latin-1 (the bidi controls, zero-width characters, CJK) costs Python's
`re` about 2.5 million instructions — a bitmap of the whole Basic Multilingual Plane built in Python — and every CLI
command and hook imported several such patterns to read text that is, nearly always, plain ASCII. A `LazyPattern`
compiles on its first use; callers first ask `plain_ascii`, which proves the pattern cannot match, and so most
processes never compile it. Either way the answer is the pattern's own. ADR 0008 has the figures.
"""

from __future__ import annotations

import re
from typing import Any

_TAB_NEWLINE = {ord("\t"): None, ord("\n"): None}


def plain_ascii(text: str, *, tab_newline: bool = False) -> bool:
    """Whether `text` is ASCII without a control character (0x00-0x1f, 0x7f): with `tab_newline`, tab and newline
    allowed. `str.isprintable` is exactly that test for ASCII text."""
    if not text.isascii():
        return False
    return text.isprintable() or (tab_newline and text.translate(_TAB_NEWLINE).isprintable())


class LazyPattern:
    """`re.compile(source, flags)`, made on the first call of one of its methods (two threads may both compile it;
    `re` gives each the same pattern)."""

    __slots__ = ("_compiled", "_flags", "_source")

    def __init__(self, source: str, flags: int = 0) -> None:
        self._source = source
        self._flags = flags
        self._compiled: re.Pattern[str] | None = None

    @property
    def compiled(self) -> re.Pattern[str]:
        if self._compiled is None:
            self._compiled = re.compile(self._source, self._flags)
        return self._compiled

    def search(self, text: str) -> re.Match[str] | None:
        return self.compiled.search(text)

    def fullmatch(self, text: str) -> re.Match[str] | None:
        return self.compiled.fullmatch(text)

    def sub(self, replacement: Any, text: str) -> str:
        return self.compiled.sub(replacement, text)
