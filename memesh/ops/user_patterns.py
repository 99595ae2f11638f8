"""user_patterns: how the user works — schedule, tools, focus, workflow, strengths, learning — from stored memory."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol, cast

from returns.result import Result, Success

from memesh.context import CallContext
from memesh.core import patterns as rules
from memesh.errors import MemeshError
from memesh.generated.tools.user_patterns_input import UserPatternsInput
from memesh.generated.tools.user_patterns_output import UserPatternsOutput


class PatternsStore(Protocol):
    def local_hour_weekday_counts(self) -> list[tuple[int, int, int]]: ...
    def observations_starting(self, types: Sequence[str], prefix: str, limit: int) -> list[str]: ...
    def count_of_types(self, types: Sequence[str]) -> int: ...
    def type_counts(self, *, active_only: bool = False) -> list[tuple[str, int]]: ...
    def type_confidence(self, exclude: Sequence[str], min_count: int, limit: int) -> list[tuple[str, float, int]]: ...
    def tags_on_types(self, types: Sequence[str], limit: int) -> list[tuple[str, int]]: ...


def user_patterns(
    store: PatternsStore, request: UserPatternsInput, *, ctx: CallContext
) -> Result[UserPatternsOutput, MemeshError]:
    """The categories asked for (all when none are named), each computed only when asked; never fails."""
    wanted = rules.wanted(request.get("categories"))
    out: dict[str, Any] = {}
    if "workSchedule" in wanted:
        hours, days = rules.schedule(store.local_hour_weekday_counts())
        out["workSchedule"] = {
            "hourDistribution": [{"hour": h, "count": n} for h, n in hours],
            "dayDistribution": [{"dayNum": d, "count": n} for d, n in days],
        }
    if "toolPreferences" in wanted:
        notes = store.observations_starting(rules.SESSION_TYPES, "[FOCUS]", rules.SESSION_NOTES_SCANNED)
        out["toolPreferences"] = rules.tool_preferences(notes)
    if "focusAreas" in wanted:
        counts = [(t, n) for t, n in store.type_counts(active_only=True) if t not in rules.AUTO_TYPES]
        out["focusAreas"] = [{"type": t, "count": n} for t, n in counts[: rules.FOCUS_LIMIT]]
    if "workflow" in wanted:
        commits = store.count_of_types(("commit",))
        sessions = store.count_of_types(rules.SESSION_TYPES)
        notes = store.observations_starting(rules.SESSION_TYPES, "[SESSION]", rules.SESSION_NOTES_SCANNED)
        out["workflow"] = {
            "avgSessionMinutes": rules.average_session_minutes(notes),
            "commitsPerSession": rules.commits_per_session(commits, sessions),
            "totalSessions": sessions,
            "totalCommits": commits,
        }
    if "strengths" in wanted:
        rows = store.type_confidence(rules.AUTO_TYPES, rules.STRENGTH_MIN_COUNT, rules.STRENGTH_LIMIT)
        out["strengths"] = [{"type": t, "avgConfidence": c, "count": n} for t, c, n in rows]
    if "learningAreas" in wanted:
        # Ask for more than are shown: filing tags (project:, severity:, …) are dropped after counting.
        tags = store.tags_on_types(rules.LEARNING_TYPES, rules.LEARNING_LIMIT * 5)
        out["learningAreas"] = rules.learning_areas(tags)
    return Success(cast(UserPatternsOutput, out))
