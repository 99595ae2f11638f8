"""One progress line on stderr for long CLI work, rewritten in place, and only when stderr is a terminal.

A script reading stderr (or a log) gets nothing from it: the line exists for the person watching.
"""

from __future__ import annotations

import sys
import time
from typing import TextIO

from memesh.transports.cli.terminal import safe, unwrapped

CLEAR = "\r\x1b[K"  # back to the start of the line, and erase it
INTERVAL_SECONDS = 0.2  # often enough to look alive, rarely enough to cost nothing


class Progress:
    """`say` a phase, `step` through counted work, `clear` before printing anything else on the terminal."""

    def __init__(self, stream: TextIO | None = None) -> None:
        # The erase sequence is ours, so it goes to the terminal as is; the text beside it is made safe.
        self._stream = unwrapped(stream if stream is not None else sys.stderr)
        self.shown = self._stream.isatty()
        self._label = ""
        self._last = 0.0
        self._dirty = False

    def say(self, text: str) -> None:
        if self.shown:
            self._stream.write(f"{CLEAR}{safe(text)}")
            self._stream.flush()
            self._dirty = True

    def counting(self, label: str) -> Progress:
        """Name the work the next `step` calls count."""
        self._label = label
        self._last = 0.0
        return self

    def step(self, done: int, total: int) -> None:
        """`done` of `total` finished: shown at most every INTERVAL_SECONDS, and always at the end."""
        if not self.shown:
            return
        now = time.monotonic()
        if now - self._last < INTERVAL_SECONDS and done < total:
            return
        self._last = now
        percent = done * 100 // total if total else 100
        self.say(f"{self._label}: {done:,}/{total:,} ({percent}%)")

    def clear(self) -> None:
        if self._dirty:
            self._stream.write(CLEAR)
            self._stream.flush()
            self._dirty = False
