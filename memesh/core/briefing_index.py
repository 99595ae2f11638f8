"""The durable-memory index a briefing closes with at standard/full (and `memesh briefing --index` prints alone).

One line per durable memory, newest activity first, capped at 40 lines and 3072 UTF-8 bytes for the whole section
(heading and footer included); memories with no change for 180 days are counted on one line instead of listed.
Pure: the candidates come in already scoped (active, this project, trusted, durable types), newest first.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import field
from datetime import UTC, datetime, timedelta
from functools import lru_cache
from typing import NamedTuple

from memesh.core.briefing_text import MemoryLine, memory_line, safe_line, utf8_bytes, utf16_units
from memesh.core.scoring import parse_time
from memesh.records import dataclass

MAX_LINES = 40
MAX_BYTES = 3072
STALE_DAYS = 180
CANDIDATE_WINDOW = 2000
TITLE_UNITS = 80
SNIPPET_UNITS = 60
# Types that record work as it happened rather than what was decided or learned (EVIDENCE_LAYER_TYPES upstream),
# and the two single-row records a briefing shows on their own.
EVIDENCE_TYPES = frozenset(
    {
        "commit",
        "session-insight",
        "session_insight",
        "session-summary",
        "session_summary",
        "session_keypoint",
        "session-keypoint",
        "session_identity",
        "session-identity",
        "weekly-summary",
        "weekly_summary",
        "workflow_checkpoint",
        "workflow-checkpoint",
    }
)
TASK_STATE_TYPE = "task-state"
HANDOFF_TYPE = "session-handoff"
NOT_INDEXED = EVIDENCE_TYPES | {TASK_STATE_TYPE, HANDOFF_TYPE}


class Candidate(NamedTuple):
    """One durable memory as the index sees it; `activity` is the later of creation and the newest observation.
    A named tuple: a briefing builds up to 2000 of them."""

    id: int
    type: str
    title: str
    snippet: str | None
    activity: str | None


@dataclass(frozen=True)
class Index:
    lines: list[str]
    shown: int
    more: int
    older: int
    truncated: bool
    bytes: int
    tokens: int
    ids: list[int] = field(default_factory=list)

    def as_dict(self) -> dict[str, object]:
        return {
            "lines": list(self.lines),
            "shown": self.shown,
            "more": self.more,
            "older": self.older,
            "truncated": self.truncated,
            "bytes": self.bytes,
            "tokens": self.tokens,
            "ids": list(self.ids),
        }


def heading(label: str) -> str:
    return f'Index of durable memories for "{safe_line(label)}" (newest first):'


def empty_line(label: str) -> str:
    return f'- No durable memories (decisions, lessons, patterns, references) for "{safe_line(label)}" yet.'


UNREADABLE = "- The durable-memory index could not be read this time (see `memesh doctor`)."


def unreadable(label: str) -> Index:
    """What stands for the index when reading it failed: it says so, and never claims there is nothing to list."""
    lines, size = _with_footer([heading(label), UNREADABLE], 0)
    return Index(lines=lines, shown=0, more=0, older=0, truncated=False, bytes=size, tokens=math.ceil(size / 4))


def _section_bytes(lines: Sequence[str]) -> int:
    return sum(utf8_bytes(line) + 1 for line in lines)  # each line ends in a newline


def _footer(shown: int, size: int) -> str:
    noun = "line" if shown == 1 else "lines"
    tokens = math.ceil(size / 4)
    return f"(index cost: {shown} {noun}, {size} bytes ≈ {tokens} tokens; cap {MAX_LINES} lines / {MAX_BYTES} bytes)"


def _with_footer(body: list[str], shown: int) -> tuple[list[str], int]:
    """The section closed by its footer, whose byte figure counts the footer itself (a fixed point)."""
    size = _section_bytes(body)
    while True:
        total = _section_bytes(body) + utf8_bytes(_footer(shown, size)) + 1
        if total == size:
            return [*body, _footer(shown, size)], size
        size = total


@lru_cache(maxsize=8)
def _cutoff(now: datetime) -> str:
    """The stale line as SQLite's own text: formatted once per `now`, not once per memory (2000 of them)."""
    return (now - timedelta(days=STALE_DAYS)).astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S")


def is_older(activity: str | None, now: datetime) -> bool:
    """Whether a memory has had no change for 180 days; an undatable one is not (it stays listed)."""
    if activity is not None and len(activity) == 19 and activity[10] == " ":
        # SQLite's own `YYYY-MM-DD HH:MM:SS` (UTC) orders as text: no parse for the common case.
        return activity < _cutoff(now)
    when = parse_time(activity)
    return when is not None and now - when > timedelta(days=STALE_DAYS)


def build(
    label: str,
    candidates: Sequence[Candidate],
    now: datetime,
    *,
    window_full: bool = False,
    room_units: int | None = None,
) -> Index:
    """The index section for these candidates; with `room_units`, the whole section also fits that many UTF-16 units
    (the room left in a briefing block), so it may list fewer memories than the standalone index."""
    listed = [c for c in candidates if not is_older(c.activity, now)]
    older = len(candidates) - len(listed)
    plus = "+" if window_full else ""

    rendered: list[str] = []  # each memory's line, rendered once however many sizes are tried

    def line(index: int) -> str:
        while len(rendered) <= index:
            c = listed[len(rendered)]
            rendered.append(
                memory_line(
                    MemoryLine(c.id, c.type, c.title, c.snippet), title_units=TITLE_UNITS, snippet_units=SNIPPET_UNITS
                )
            )
        return rendered[index]

    def assemble(count: int) -> tuple[list[str], int]:
        body = [heading(label), *(line(i) for i in range(count))]
        more = len(listed) - count
        if more:
            body.append(f'- {more}{plus} more — memesh recall --tag "project:…"')
        if older:
            body.append(f"- {older}{plus} older memories (no change for {STALE_DAYS} days) — recall to see")
        if not listed and not older:
            body.append(empty_line(label))
        return _with_footer(body, count)

    def fits(lines: list[str], size: int) -> bool:
        if size > MAX_BYTES:
            return False
        return room_units is None or sum(utf16_units(line) + 1 for line in lines) - 1 <= room_units

    count = 0
    lines, size = assemble(0)
    while count < min(MAX_LINES, len(listed)):
        trial, trial_size = assemble(count + 1)
        if not fits(trial, trial_size):
            break
        count, lines, size = count + 1, trial, trial_size
    more = len(listed) - count
    return Index(
        lines=lines,
        shown=count,
        more=more,
        older=older,
        truncated=more > 0,
        bytes=size,
        tokens=math.ceil(size / 4),
        ids=[c.id for c in listed[:count]],
    )
