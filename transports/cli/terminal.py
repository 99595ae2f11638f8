"""Terminal safety for everything the CLI prints: no raw control character from the database reaches the terminal.

Stored text is cleaned on the way in, but a database written by an older version, or by another program, can still
hold an escape sequence (OSC 52 sets the clipboard, OSC 0 retitles the window, CSI hides or rewrites text) or a bidi
override that reorders what a person reads. Every write to stdout and stderr passes through here: C0 controls other
than newline and tab, DEL, C1 controls and the bidi overrides and isolates are shown as `\\uXXXX`. Inside `--json`
output that is the same JSON (the escape decodes to the same character), so scripts read exactly what was stored.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, TextIO

_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
# Inside one line of a listing, a newline or a tab is as unsafe: a name holding one (a transcript file named
# "a\n#9  [pending] ...") would print a line that looks like another record.
_UNSAFE_IN_A_LINE = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def _escaped(match: re.Match[str]) -> str:
    return f"\\u{ord(match.group()):04x}"


def safe(text: str) -> str:
    """`text` as the terminal is given it. A carriage return that starts the text is kept: the CLI's own progress
    bar redraws its line with it (nothing from the database is ever written first on a line that way)."""
    if text.startswith("\r"):
        return "\r" + _UNSAFE.sub(_escaped, text[1:])
    return _UNSAFE.sub(_escaped, text)


def one_line(value: object) -> str:
    """`value` as text for one line of a listing: every control character, newline and tab included, as `\\uXXXX`
    (a name or id from the database cannot start a line of its own)."""
    return _UNSAFE_IN_A_LINE.sub(_escaped, str(value))


class SafeStream:
    """A text stream whose writes are made terminal-safe; everything else is the wrapped stream's."""

    def __init__(self, inner: TextIO) -> None:
        self._inner = inner

    def write(self, text: str) -> int:
        return self._inner.write(safe(text))

    def writelines(self, lines: Any) -> None:
        for line in lines:
            self.write(line)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


def unwrapped(stream: TextIO) -> TextIO:
    """The stream under a SafeStream: for the CLI's own control sequences (a progress line), never database text."""
    return stream._inner if isinstance(stream, SafeStream) else stream


@contextmanager
def terminal_safe() -> Iterator[None]:
    """stdout and stderr made terminal-safe for the duration."""
    out, err = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = SafeStream(out), SafeStream(err)
    try:
        yield
    finally:
        sys.stdout, sys.stderr = out, err
