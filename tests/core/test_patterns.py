"""The user-pattern rules with plain values: categories, session notes, lesson topics and the markdown view."""

from __future__ import annotations

from memesh.core import patterns as rules


def test_no_categories_means_every_category_and_the_tool_preferences() -> None:
    assert rules.wanted(None) == frozenset((*rules.CATEGORIES, "toolPreferences"))
    assert rules.wanted([]) == rules.wanted(None)
    assert rules.wanted(["workflow"]) == frozenset({"workflow"})


def test_schedule_sums_hour_and_weekday_cells_in_order() -> None:
    hours, days = rules.schedule([(14, 1, 2), (9, 1, 3), (9, 0, 1), (25, 9, 7)])
    assert hours == [(9, 4), (14, 2)]
    assert days == [(0, 1), (1, 5)]


def test_tool_preferences_count_sessions_naming_each_tool() -> None:
    notes = ["[FOCUS] Top tools: Edit(14), Bash(9)", "[FOCUS] Top tools: Bash(2)", "[FOCUS] nothing here"]
    assert rules.tool_preferences(notes) == [{"tool": "Bash", "sessions": 2}, {"tool": "Edit", "sessions": 1}]


def test_average_session_minutes_reads_duration_lines_only() -> None:
    assert rules.average_session_minutes(["[SESSION] Duration: 40m", "[SESSION] Duration: 21m", "[SESSION] ?"]) == 30
    assert rules.average_session_minutes([]) == 0


def test_commits_per_session_rounds_to_one_decimal_and_survives_no_sessions() -> None:
    assert rules.commits_per_session(46, 20) == 2.3
    assert rules.commits_per_session(5, 0) == 0.0


def test_learning_areas_leave_out_filing_tags() -> None:
    counts = [("project:x", 9), ("severity:major", 8), ("async", 3), ("date:2026", 2), ("topic:db", 3)]
    assert rules.learning_areas(counts) == [{"tag": "async", "count": 3}, {"tag": "topic:db", "count": 3}]


def test_the_tag_every_learn_carries_is_not_a_learning_area() -> None:
    # `memesh learn` tags each lesson source:explicit: where it came from, not what it is about.
    counts = [("source:explicit", 12), ("async", 3)]
    assert rules.learning_areas(counts) == [{"tag": "async", "count": 3}]


def test_markdown_has_one_section_per_category_present() -> None:
    text = rules.to_markdown(
        {
            "workSchedule": {
                "hourDistribution": [{"hour": 9, "count": 42}, {"hour": 14, "count": 38}],
                "dayDistribution": [{"dayNum": 1, "count": 50}],
            },
            "workflow": {"avgSessionMinutes": 30, "commitsPerSession": 2.3, "totalSessions": 20, "totalCommits": 46},
            "learningAreas": [],
        }
    )
    assert text.startswith("# User work patterns\n")
    assert "Peak hours: 09:00 (42), 14:00 (38)" in text
    assert "Peak days: Monday (50)" in text
    assert "- Commits per session: 2.3" in text
    assert "## Learning areas\n(none yet)" in text
    assert "## Strengths" not in text
