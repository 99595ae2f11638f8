"""Task state: one owner-stated record per project (goal, next, blocked, done). Pure decisions."""

from __future__ import annotations

import re
from typing import Any

from memesh.core.notes import TITLE_MAX, shorten
from memesh.records import dataclass

FIELDS = ("goal", "next", "blocked", "done")
ENTITY_TYPE = "task-state"
_SPACES = re.compile(r"\s+")


def entity_name(project: str) -> str:
    return f"task-state:{project}"


def normalize(value: str) -> str:
    """One line: runs of whitespace collapsed, trimmed (an empty result clears the field)."""
    return _SPACES.sub(" ", value).strip()


@dataclass(frozen=True)
class Update:
    """The state after a write, which fields really changed, and the observations recording the change."""

    state: dict[str, str]
    changed: list[str]
    observations: list[str]


def stored_state(metadata: dict[str, Any]) -> dict[str, str]:
    """The recorded state, keeping only well-formed fields (a damaged record reads as partly empty, never crashes)."""
    raw = metadata.get("task_state")
    if not isinstance(raw, dict):
        return {}
    return {key: value for key, value in raw.items() if key in (*FIELDS, "updated_at") and isinstance(value, str)}


def apply(current: dict[str, str], patch: dict[str, str], updated_at: str) -> Update:
    """Apply the fields present in `patch` ("" clears); unchanged restatements change nothing, not even updated_at."""
    state = dict(current)
    changed: list[str] = []
    observations: list[str] = []
    for key in FIELDS:
        if key not in patch:
            continue
        value = normalize(patch[key])
        if value == state.get(key, ""):
            continue
        changed.append(key)
        if value:
            state[key] = value
            observations.append(f"{key}: {value}")
        else:
            state.pop(key, None)
            observations.append(f"{key} cleared")
    if changed:
        state["updated_at"] = updated_at
    return Update(state=state, changed=changed, observations=observations)


def title_for(project: str, state: dict[str, str]) -> str:
    first = next((state[key] for key in FIELDS if state.get(key)), None)
    return shorten(first or f"Task state for {project}", TITLE_MAX)


def shown(state: dict[str, str]) -> dict[str, str]:
    """The state in field order, absent fields absent (never empty strings)."""
    return {key: state[key] for key in (*FIELDS, "updated_at") if state.get(key)}
