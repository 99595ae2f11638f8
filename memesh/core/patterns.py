"""How the user works, derived from what memory holds: which categories to compute, what session notes say about
tools and durations, and the markdown an agent reads. Pure functions of plain values.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Final

CATEGORIES: Final = ("workSchedule", "focusAreas", "workflow", "strengths", "learningAreas")

# Memories the hooks write on their own: they say when the user worked, not what the user works on.
AUTO_TYPES: Final = ("session_keypoint", "commit", "session_identity", "workflow_checkpoint", "session-insight")
SESSION_TYPES: Final = ("session_keypoint", "session-insight")
LEARNING_TYPES: Final = ("lesson_learned", "mistake", "bug_fix", "lesson")
# Tags that say how a lesson was filed rather than what it is about.
LEARNING_TAG_NOISE: Final = re.compile(
    r"^(?:date:|auto|session|scope:project$|project:|severity:|error-pattern:|source:)"
)

FOCUS_LIMIT: Final = 10
STRENGTH_LIMIT: Final = 5
STRENGTH_MIN_COUNT: Final = 2
LEARNING_LIMIT: Final = 10
TOOL_LIMIT: Final = 10
SESSION_NOTES_SCANNED: Final = 500

_TOP_TOOLS = re.compile(r"Top tools: (.+)")
_DURATION = re.compile(r"Duration: (\d{1,6})m")
DAY_NAMES: Final = ("Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday")


def wanted(categories: Sequence[str] | None) -> frozenset[str]:
    """The categories to compute: those asked for, or all of them (plus tool preferences) when none are named."""
    if not categories:
        return frozenset((*CATEGORIES, "toolPreferences"))
    return frozenset(categories)


def schedule(cells: Iterable[tuple[int, int, int]]) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    """(hour, weekday, count) cells summed into (hour, count) and (weekday, count), each in order, empty ones out."""
    hours: dict[int, int] = {}
    days: dict[int, int] = {}
    for hour, weekday, count in cells:
        if 0 <= hour <= 23 and 0 <= weekday <= 6:
            hours[hour] = hours.get(hour, 0) + count
            days[weekday] = days.get(weekday, 0) + count
    return sorted(hours.items()), sorted(days.items())


def tool_preferences(focus_notes: Iterable[str], limit: int = TOOL_LIMIT) -> list[dict[str, Any]]:
    """Tools named on `Top tools: a(3), b(1)` lines of session notes, by how many sessions named them."""
    counts: dict[str, int] = {}
    for note in focus_notes:
        found = _TOP_TOOLS.search(note)
        if not found:
            continue
        for part in found.group(1).split(","):
            tool = part.split("(", 1)[0].strip()
            if tool:
                counts[tool] = counts.get(tool, 0) + 1
    ranked = sorted(counts.items(), key=lambda item: (-item[1], item[0]))[:limit]
    return [{"tool": tool, "sessions": sessions} for tool, sessions in ranked]


def average_session_minutes(session_notes: Iterable[str]) -> int:
    """The mean of the `Duration: <n>m` figures in session notes, rounded; 0 when none states one."""
    minutes = [int(found.group(1)) for note in session_notes if (found := _DURATION.search(note))]
    return round(sum(minutes) / len(minutes)) if minutes else 0


def commits_per_session(commits: int, sessions: int) -> float:
    """Commits divided by sessions, to one decimal; 0 with no sessions."""
    return round(commits / sessions, 1) if sessions > 0 else 0.0


def learning_areas(tag_counts: Iterable[tuple[str, int]], limit: int = LEARNING_LIMIT) -> list[dict[str, Any]]:
    """The topics lessons are tagged with, most frequent first, filing tags left out."""
    kept = [(tag, count) for tag, count in tag_counts if not LEARNING_TAG_NOISE.match(tag)]
    kept.sort(key=lambda item: (-item[1], item[0]))
    return [{"tag": tag, "count": count} for tag, count in kept[:limit]]


def _count_lines(rows: Iterable[Mapping[str, Any]], label: str, value: str, suffix: str = "") -> list[str]:
    return [f"- {row[label]}: {row[value]}{suffix}" for row in rows]


def to_markdown(patterns: Mapping[str, Any]) -> str:
    """The patterns as markdown for an agent to read: one section per category present, '(none yet)' when empty."""
    lines = ["# User work patterns"]

    def section(title: str, body: list[str]) -> None:
        lines.extend(["", f"## {title}", *(body or ["(none yet)"])])

    if "workSchedule" in patterns:
        schedule = patterns["workSchedule"]
        hours = sorted(schedule["hourDistribution"], key=lambda row: (-row["count"], row["hour"]))[:5]
        days = sorted(schedule["dayDistribution"], key=lambda row: (-row["count"], row["dayNum"]))[:3]
        body = []
        if hours:
            body.append("Peak hours: " + ", ".join(f"{row['hour']:02d}:00 ({row['count']})" for row in hours))
        if days:
            body.append("Peak days: " + ", ".join(f"{DAY_NAMES[row['dayNum']]} ({row['count']})" for row in days))
        section("Work schedule", body)
    if "toolPreferences" in patterns:
        section("Tool preferences", _count_lines(patterns["toolPreferences"], "tool", "sessions", " sessions"))
    if "focusAreas" in patterns:
        section("Focus areas", _count_lines(patterns["focusAreas"], "type", "count"))
    if "workflow" in patterns:
        flow = patterns["workflow"]
        section(
            "Workflow",
            [
                f"- Sessions: {flow['totalSessions']}",
                f"- Commits: {flow['totalCommits']}",
                f"- Commits per session: {flow['commitsPerSession']}",
                f"- Average session: {flow['avgSessionMinutes']} min",
            ],
        )
    if "strengths" in patterns:
        section(
            "Strengths",
            [
                f"- {row['type']}: {row['count']} memories, confidence {row['avgConfidence']}"
                for row in patterns["strengths"]
            ],
        )
    if "learningAreas" in patterns:
        section("Learning areas", _count_lines(patterns["learningAreas"], "tag", "count"))
    return "\n".join(lines) + "\n"
