"""How much a memory is likely to matter, from its type and content alone: `metadata.signal_score`, a weight from 0 to 1
stamped on every memory when it is first stored (digest work packages and relation backfill read it)."""

from __future__ import annotations

import re
from collections.abc import Sequence

_BASE = {
    **dict.fromkeys(("lesson_learned", "release"), 1.0),
    **dict.fromkeys(
        ("decision", "architecture", "architecture_decision", "pattern", "technical_pattern", "best_practice"), 0.9
    ),
    "plan": 0.85,
    "bug_fix": 0.7,
    "feature": 0.65,
    **dict.fromkeys(("reference", "documentation"), 0.6),
    "note": 0.55,
    **dict.fromkeys(("workflow_checkpoint", "weekly-summary", "weekly_summary"), 0.4),
    "session_keypoint": 0.2,
}
_DEFAULT_BASE = 0.5


def signal_score(entity_type: str, observations: Sequence[str], tags: Sequence[str]) -> float:
    """How much a memory is likely to matter, from its type and content alone."""
    base = _BASE.get(entity_type, _DEFAULT_BASE)
    text = " ".join(observations).strip()
    if len(text) < 10:
        return min(base, 0.1)
    if entity_type == "session_keypoint" and "Duration: 0s, Tools used: 0" in text:
        return 0.0
    if entity_type == "commit":
        subject, _, body = observations[0].partition("\n") if observations else ("", "", "")
        if not body.strip():
            if len(subject) < 30:
                return 0.3 if re.search(r"[!:]", subject) else 0.2
            if len(subject) < 60:
                return 0.4
        return min(0.7, base + 0.1)
    if entity_type == "session-insight":
        return 0.7 if "type:bugfix" in tags else 0.6 if "type:heavy-session" in tags else 0.5
    if entity_type in ("weekly-summary", "weekly_summary"):
        return 0.5 if len(text) > 200 else 0.3
    if base >= 0.8 and len(text) > 200:
        return min(1.0, base + 0.05)
    return base
