"""A regular expression compiled on its first use rather than when its module is imported.

re's compiler is Python: a pattern costs from about 0.5 M instructions (a short one) to 19 M (the CJK class in
`terms`, whose ranges it walks one code point at a time). A cold hook imports far more patterns than it uses (the
store imports the search terms' patterns, the session-start hook the message rules'), so a module whose patterns
a hook imports without using them declares them here (docs/adr/0014-hosts.md, "Measurements").
"""

from __future__ import annotations

import re

TYPE_CHECKING = False  # not typing's: modules on a hook's path import this one
if TYPE_CHECKING:
    from collections.abc import Callable, Iterator


class LazyPattern:
    """re.compile(pattern, flags), made when a method is first called; the methods a module here uses."""

    __slots__ = ("_compiled", "_flags", "pattern")

    def __init__(self, pattern: str, flags: int = 0) -> None:
        self.pattern = pattern
        self._flags = flags
        self._compiled: re.Pattern[str] | None = None

    def compiled(self) -> re.Pattern[str]:
        found = self._compiled
        if found is None:
            found = self._compiled = re.compile(self.pattern, self._flags)
        return found

    def search(self, text: str, pos: int = 0) -> re.Match[str] | None:
        return self.compiled().search(text, pos)

    def match(self, text: str, pos: int = 0) -> re.Match[str] | None:
        return self.compiled().match(text, pos)

    def fullmatch(self, text: str) -> re.Match[str] | None:
        return self.compiled().fullmatch(text)

    def findall(self, text: str) -> list[str]:
        return self.compiled().findall(text)

    def finditer(self, text: str) -> Iterator[re.Match[str]]:
        return self.compiled().finditer(text)

    def split(self, text: str) -> list[str]:
        return self.compiled().split(text)

    def sub(self, replacement: str | Callable[[re.Match[str]], str], text: str, count: int = 0) -> str:
        return self.compiled().sub(replacement, text, count)
