"""Near-miss memory types: a type one edit or two away from one MeMesh gives meaning to ("desicion") is almost
always a typo, and a typo makes a new type nobody's briefing shows. Pure."""

from __future__ import annotations

import difflib
from typing import Final

# The types MeMesh itself reads (the briefing's decisions and lessons, notes, captures, task state) and the ones the
# tools' descriptions suggest.
KNOWN: Final = frozenset(
    {
        "decision",
        "architecture_decision",
        "design_decision",
        "lesson_learned",
        "lesson",
        "mistake",
        "pattern",
        "fact",
        "note",
        "preference",
        "bug_fix",
        "feature",
        "product_improvement",
        "commit",
        "session-insight",
        "session-handoff",
        "task-state",
    }
)
# difflib's ratio: "desicion" against "decision" is 0.75; requiring the first letter too keeps "session" from
# reading as a miss of "lesson" (a typo seldom changes the first letter).
CUTOFF = 0.75


def near_miss(entity_type: str) -> str | None:
    """The known type `entity_type` is probably a misspelling of, or None (a known type, or nothing close)."""
    if entity_type in KNOWN:
        return None
    lowered = entity_type.lower()
    candidates = sorted(known for known in KNOWN if lowered[:1] == known[:1])
    close = difflib.get_close_matches(lowered, candidates, n=1, cutoff=CUTOFF)
    return close[0] if close and close[0] != entity_type else None


def near_miss_warning(entity_type: str, known: str) -> str:
    return f'type "{entity_type}" is not one MeMesh knows; did you mean "{known}"? (stored as given)'


def kept_type_warning(name: str, stored: str) -> str:
    return f'"{name}" keeps its stored type "{stored}": a type is changed only with replace'
