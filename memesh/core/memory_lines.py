"""A memory as the memory tool shows it: its observations, in insertion order, one after another as lines.

The file has no header, so "line 3" is always the third line of what the memory says. Observations are ordered by
id, never by score: view and the edit that follows are two turns apart, and an order that a ranking could change in
between would make the model's line numbers address other content. One observation may span several lines, so the
line → observation map is computed from the rendered text.

Edits are planned here as plain values: what the observation list becomes, or why the edit is refused.
"""

from __future__ import annotations

from typing import Final

from returns.result import Failure, Result, Success

from memesh.errors import MemeshError
from memesh.records import dataclass
from memesh.schema import facts

LINE_WIDTH = 6  # line numbers as the Anthropic SDK's own memory tool prints them: right-aligned in 6, then a tab
VIEW_MAX_CHARS = 16_000  # a view longer than this is cut at a line, and says how to read on
# A memory holds what remember lets one hold: at most this many observations, each at most this long.
_OBSERVATIONS: Final = facts.field("tools/remember.input", "observations")
MAX_LINES: Final[int] = _OBSERVATIONS["maxItems"]
LINE_MAX_CHARS: Final[int] = _OBSERVATIONS["items"]["maxLength"]


def render(observations: list[str]) -> str:
    return "\n".join(observations)


def line_owners(observations: list[str]) -> list[int]:
    """For each rendered line (index 0 = line 1), the index of the observation it belongs to."""
    owners: list[int] = []
    for index, text in enumerate(observations):
        owners.extend([index] * (text.count("\n") + 1))
    return owners


def numbered(lines: list[str], first: int = 1) -> str:
    return "\n".join(f"{number:>{LINE_WIDTH}}\t{line}" for number, line in enumerate(lines, start=first))


def failed(message: str) -> Failure[MemeshError]:
    return Failure(MemeshError.failed(f"Error: {message}"))


def bad(message: str) -> Failure[MemeshError]:
    return Failure(MemeshError.bad_body(f"Error: {message}"))


def view(path: str, observations: list[str], view_range: tuple[int, int] | None) -> Result[str, MemeshError]:
    """The memory with line numbers, all of it (cut at VIEW_MAX_CHARS) or the lines `view_range` names."""
    lines = render(observations).split("\n") if observations else []
    header = f"Here's the content of {path} with line numbers:\n"
    if view_range is None:
        kept: list[str] = []
        used = 0
        for line in lines:
            if used + len(line) + 1 > VIEW_MAX_CHARS and kept:
                break
            kept.append(line)
            used += len(line) + 1
        body = header + numbered(kept)
        if len(kept) < len(lines):
            body += (
                f"\n\n[cut at line {len(kept)} of {len(lines)}: "
                f"view with view_range [{len(kept) + 1}, -1] to read the rest]"
            )
        return Success(body)
    start, end = view_range
    last = len(lines) if end == -1 else end
    if start < 1 or start > max(len(lines), 1) or last < start or last > len(lines):
        return bad(
            f"Invalid `view_range`: [{start}, {end}]. It should be within the range of lines of the file: "
            f"[1, {len(lines)}] (end -1 reads to the last line)."
        )
    return Success(header + numbered(lines[start - 1 : last], start))


def file_lines(text: str) -> list[str]:
    """The observations a block of text written to a memory becomes: one per non-blank line."""
    return [line for line in text.split("\n") if line.strip()]


def too_big(observations: list[str]) -> Result[list[str], MemeshError]:
    """The list, or a refusal when it exceeds what one memory may hold."""
    if len(observations) > MAX_LINES:
        return bad(
            f"a memory holds at most {MAX_LINES} lines (each line is one thing remembered); this edit would make "
            f"{len(observations)}. Split it across several memories."
        )
    for number, text in enumerate(observations, start=1):
        if len(text) > LINE_MAX_CHARS:
            return bad(
                f"line {number} would be {len(text)} characters; one line holds at most {LINE_MAX_CHARS:,}. "
                "Split it into several lines."
            )
    return Success(observations)


@dataclass(frozen=True)
class Edit:
    """The observation list after an edit, and the rendered line the edit begins on (for the snippet shown)."""

    observations: list[str]
    line: int


def str_replace(path: str, observations: list[str], old: str, new: str) -> Result[Edit, MemeshError]:
    """Replace the one occurrence of `old`; refused when it is absent or occurs more than once (every line named)."""
    body = render(observations)
    first = body.find(old)
    if first == -1:
        return failed(f"No replacement was performed, old_str `{old}` did not appear verbatim in {path}.")
    if body.find(old, first + 1) != -1:
        starts = [index for index in range(len(body)) if body.startswith(old, index)]
        lines = ", ".join(str(body.count("\n", 0, index) + 1) for index in starts)
        return failed(
            f"No replacement was performed. Multiple occurrences of old_str `{old}` in lines: {lines}. "
            "Please ensure it is unique"
        )
    end = first + len(old)
    owners = line_owners(observations)
    # The lines the match touches; when it ends on a line break, the line that break joined on is touched too.
    first_line = body.count("\n", 0, first)
    last_line = min(body.count("\n", 0, end), len(owners) - 1)
    low, high = owners[first_line], owners[last_line]
    region_start = len(render(observations[:low])) + (1 if low else 0)
    region_end = len(render(observations[: high + 1]))
    text = body[region_start:first] + new + body[end:region_end]
    # An edit inside one memory that already spans lines keeps it one memory; otherwise each line is one memory.
    keeps_one = low == high and "\n" in observations[low]
    replacement = ([text] if text.strip() else []) if keeps_one else file_lines(text)
    result = [*observations[:low], *replacement, *observations[high + 1 :]]
    return too_big(result).map(lambda checked: Edit(checked, first_line + 1))


def insert(path: str, observations: list[str], after_line: int, text: str) -> Result[Edit, MemeshError]:
    """A new observation after the one owning `after_line` (0 prepends), never inside a multi-line observation."""
    owners = line_owners(observations) if observations else []
    if after_line < 0 or after_line > len(owners):
        return bad(
            f"Invalid `insert_line` parameter: {after_line}. It should be within the range of lines of the file: "
            f"[0, {len(owners)}]."
        )
    entry = text[:-1] if text.endswith("\n") else text
    if not entry.strip():
        return bad("`insert_text` must contain some text: a blank line is not something to remember.")
    position = 0 if after_line == 0 else owners[after_line - 1] + 1
    result = [*observations[:position], entry, *observations[position:]]
    line = len(render(observations[:position]).split("\n")) + 1 if position else 1
    return too_big(result).map(lambda checked: Edit(checked, line))


def no_repeats(edit: Edit, *, allowed: str | None = None) -> Result[Edit, MemeshError]:
    """The edit as it is, or refused when it makes a line the same as another (but `allowed`): a memory keeps each
    line once, so the file would silently lose a line and every later line number would point one line off."""
    first_line = 1
    seen: dict[str, int] = {}
    for text in edit.observations:
        if text in seen and text != allowed:
            return failed(
                f"the edit would make line {first_line} the same as line {seen[text]}, and a memory keeps each line "
                "once (the file would lose a line). Make the lines differ, or delete one of them. Nothing was changed."
            )
        seen[text] = first_line
        first_line += text.count("\n") + 1
    return Success(edit)


def snippet(observations: list[str], line: int) -> str:
    """A few numbered lines around `line`, to show what an edit left."""
    lines = render(observations).split("\n") if observations else []
    start = max(1, line - 2)
    return numbered(lines[start - 1 : line + 2], start)
