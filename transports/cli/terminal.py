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

from memesh.core.lazy_pattern import LazyPattern, plain_ascii

# Compiled when text that is not plain ASCII first needs them (memesh.core.lazy_pattern): most output never does.
_UNSAFE = LazyPattern("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
# Inside one line of a listing, a newline or a tab is as unsafe: a name holding one (a transcript file named
# "a\n#9  [pending] ...") would print a line that looks like another record.
_UNSAFE_IN_A_LINE = LazyPattern("[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def _escaped(match: re.Match[str]) -> str:
    return f"\\u{ord(match.group()):04x}"


def safe(text: str) -> str:
    """`text` as the terminal is given it. A carriage return that starts the text is kept: the CLI's own progress
    bar redraws its line with it (nothing from the database is ever written first on a line that way)."""
    if plain_ascii(text, tab_newline=True):  # nothing _UNSAFE matches
        return text
    if text.startswith("\r"):
        return "\r" + _UNSAFE.sub(_escaped, text[1:])
    return _UNSAFE.sub(_escaped, text)


def one_line(value: object) -> str:
    """`value` as text for one line of a listing: every control character, newline and tab included, as `\\uXXXX`
    (a name or id from the database cannot start a line of its own)."""
    text = str(value)
    return text if plain_ascii(text) else _UNSAFE_IN_A_LINE.sub(_escaped, text)


# Text held before it is filtered and written: one regex pass and one write per this much, not one per print.
HELD_CHARS = 1 << 16


class SafeStream:
    """A text stream whose writes are made terminal-safe; everything else is the wrapped stream's.

    Text is held and written in one piece, filtered in one pass: when the stream is flushed or closed, when it has
    held HELD_CHARS, and, as the wrapped stream itself would write it, at each write on a write-through stream
    (stderr) and at each line on a line-buffered one (a terminal). Text that starts with a carriage return (a
    progress line redrawn) is filtered apart from what came before it, so it keeps its carriage return.
    """

    def __init__(self, inner: TextIO) -> None:
        self._inner = inner
        self._held: list[str] = []
        self._size = 0
        self._write_through = bool(getattr(inner, "write_through", False))
        self._line_buffered = bool(getattr(inner, "line_buffering", False))

    def write(self, text: str) -> int:
        if text.startswith("\r"):
            self.drain()
        self._held.append(text)
        self._size += len(text)
        if self._write_through or self._size >= HELD_CHARS or (self._line_buffered and ("\n" in text or "\r" in text)):
            self.drain()
        return len(text)

    def writelines(self, lines: Any) -> None:
        for line in lines:
            self.write(line)

    def drain(self) -> None:
        """What is held, filtered and handed to the wrapped stream in one write."""
        if self._held:
            text = "".join(self._held)
            self._held.clear()
            self._size = 0
            self._inner.write(safe(text))

    def flush(self) -> None:
        self.drain()
        self._inner.flush()

    def close(self) -> None:
        self.drain()
        self._inner.close()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


def unwrapped(stream: TextIO) -> TextIO:
    """The stream under a SafeStream: for the CLI's own control sequences (a progress line), never database text.
    What the SafeStream holds is written first."""
    if isinstance(stream, SafeStream):
        stream.drain()
        return stream._inner
    return stream


@contextmanager
def terminal_safe() -> Iterator[None]:
    """stdout and stderr made terminal-safe for the duration."""
    out, err = sys.stdout, sys.stderr
    safe_out, safe_err = SafeStream(out), SafeStream(err)
    sys.stdout, sys.stderr = safe_out, safe_err
    try:
        yield
    finally:
        sys.stdout, sys.stderr = out, err
        try:
            safe_out.drain()
        finally:
            safe_err.drain()
