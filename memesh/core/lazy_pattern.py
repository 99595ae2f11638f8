"""Regular expressions compiled when first used, and the cheap test that lets ASCII text skip them.

re's compiler is Python: a pattern costs from about 0.5 M instructions (a short one) to 19 M (the CJK class in
`terms`, whose ranges it walks one code point at a time), and a character class that reaches past Latin-1 (the bidi
controls, zero-width characters, CJK) about 2.5 M. Every CLI command and hook imported far more patterns than it
uses, to read text that is, nearly always, plain ASCII. A `LazyPattern` compiles on its first use; callers may first
ask `plain_ascii`, which proves a pattern of non-ASCII characters cannot match, and so most processes never compile
it. Either way the answer is the pattern's own. ADR 0008 and ADR 0014 ("Measurements") have the figures.
"""

from __future__ import annotations

import re

TYPE_CHECKING = False  # not typing's: modules on a hook's path import this one
if TYPE_CHECKING:
    from collections.abc import Callable, Iterator

_TAB_NEWLINE = {ord("\t"): None, ord("\n"): None}


def plain_ascii(text: str, *, tab_newline: bool = False) -> bool:
    """Whether `text` is ASCII without a control character (0x00-0x1f, 0x7f): with `tab_newline`, tab and newline
    allowed. `str.isprintable` is exactly that test for ASCII text."""
    if not text.isascii():
        return False
    return text.isprintable() or (tab_newline and text.translate(_TAB_NEWLINE).isprintable())


class LazyPattern:
    """`re.compile(pattern, flags)`, made on the first call of one of its methods (two threads may both compile it;
    `re` gives each the same pattern)."""

    __slots__ = ("_compiled", "_flags", "pattern")

    def __init__(self, pattern: str, flags: int = 0) -> None:
        self.pattern = pattern
        self._flags = flags
        self._compiled: re.Pattern[str] | None = None

    @property
    def compiled(self) -> re.Pattern[str]:
        found = self._compiled
        if found is None:
            found = self._compiled = re.compile(self.pattern, self._flags)
        return found

    def search(self, text: str, pos: int = 0) -> re.Match[str] | None:
        return self.compiled.search(text, pos)

    def match(self, text: str, pos: int = 0) -> re.Match[str] | None:
        return self.compiled.match(text, pos)

    def fullmatch(self, text: str) -> re.Match[str] | None:
        return self.compiled.fullmatch(text)

    def findall(self, text: str) -> list[str]:
        return self.compiled.findall(text)

    def finditer(self, text: str) -> Iterator[re.Match[str]]:
        return self.compiled.finditer(text)

    def split(self, text: str) -> list[str]:
        return self.compiled.split(text)

    def sub(self, replacement: str | Callable[[re.Match[str]], str], text: str, count: int = 0) -> str:
        return self.compiled.sub(replacement, text, count)
