"""Guards: a lesson can carry `metadata.guard` — `{"pattern": "<regex>", "message": "<warning>"}` — and a Bash
command matching the pattern gets the lesson shown as a warning before it runs. A warning, never a block. Pure."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass

from memesh.core.briefing_text import safe_line

MAX_PATTERN = 500
MAX_WARNINGS = 3


@dataclass(frozen=True)
class Guard:
    id: int
    name: str
    pattern: re.Pattern[str]
    message: str


def parse(entity_id: int, name: str, raw: str, first_observation: str) -> Guard | None:
    """The guard a memory carries, or None when it is not a usable one (a bad regex never breaks a command)."""
    try:
        value = json.loads(raw)
    except ValueError:
        return None
    if not isinstance(value, dict) or not isinstance(value.get("pattern"), str):
        return None
    pattern = value["pattern"]
    if not pattern.strip() or len(pattern) > MAX_PATTERN:
        return None
    try:
        compiled = re.compile(pattern, re.IGNORECASE)
    except re.error:
        return None
    message = value.get("message") if isinstance(value.get("message"), str) else first_observation
    return Guard(entity_id, name, compiled, message or name)


def warnings(guards: Sequence[Guard], command: str) -> list[str]:
    """One line per guard whose pattern the command matches (at most three)."""
    hits = [g for g in guards if g.pattern.search(command)]
    return [
        f"- {safe_line(g.message, 300)} (lesson {safe_line(g.name, 120)}) [mem:{g.id}]" for g in hits[:MAX_WARNINGS]
    ]
