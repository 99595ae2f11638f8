"""The durable-memory index: caps, footer arithmetic, older memories, redaction — from plain values."""

from __future__ import annotations

from datetime import UTC, datetime

from memesh.core import briefing_index as bi

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)
RECENT = "2026-11-29 10:00:00"
OLD = "2026-01-01 10:00:00"


def _c(
    entity_id: int, title: str = "Keep the index capped", snippet: str | None = None, when: str = RECENT
) -> bi.Candidate:
    return bi.Candidate(entity_id, "decision", title, snippet, when)


def test_one_line_index_matches_the_spec_example_to_the_byte() -> None:
    index = bi.build("memesh", [_c(41)], NOW)
    assert index.lines == [
        'Index of durable memories for "memesh" (newest first):',
        "- [decision] Keep the index capped [mem:41]",
        "(index cost: 1 line, 172 bytes ≈ 43 tokens; cap 40 lines / 3072 bytes)",
    ]
    assert (index.shown, index.more, index.older, index.truncated, index.bytes, index.tokens, index.ids) == (
        1,
        0,
        0,
        False,
        172,
        43,
        [41],
    )


def test_the_bytes_figure_counts_the_whole_section_with_its_footer() -> None:
    index = bi.build("p", [_c(i, snippet="first observation " * 3) for i in range(1, 8)], NOW)
    assert index.bytes == sum(len(line.encode()) + 1 for line in index.lines)


def test_at_most_40_lines_and_the_rest_is_counted_on_a_more_line() -> None:
    index = bi.build("p", [_c(i, title=f"t{i}") for i in range(1, 61)], NOW)
    assert index.shown == 40 and index.more == 20 and index.truncated
    assert '- 20 more — memesh recall --tag "project:…"' in index.lines


def test_the_byte_cap_holds_for_long_lines() -> None:
    index = bi.build("p", [_c(i, title="x" * 200, snippet="y" * 200) for i in range(1, 41)], NOW)
    assert index.bytes <= bi.MAX_BYTES and index.truncated and index.shown + index.more == 40


def test_a_full_candidate_window_marks_counts_as_lower_bounds() -> None:
    index = bi.build("p", [_c(i, title=f"t{i}") for i in range(1, 61)], NOW, window_full=True)
    assert any(line.startswith("- 20+ more") for line in index.lines)


def test_memories_unchanged_for_180_days_are_counted_not_listed() -> None:
    index = bi.build("p", [_c(1), _c(2, when=OLD), _c(3, when=OLD)], NOW)
    assert index.ids == [1] and index.older == 2
    assert any(line.startswith("- 2 older memories") for line in index.lines)


def test_no_candidates_gives_the_empty_state_line() -> None:
    index = bi.build("my-repo", [], NOW)
    assert index.lines[1] == '- No durable memories (decisions, lessons, patterns, references) for "my-repo" yet.'
    assert index.shown == 0 and index.ids == []


def test_lines_are_redacted_and_stripped_of_controls_and_bidi_marks() -> None:
    index = bi.build(
        "p", [_c(1, title="see /home/alice/x\u202e\x07\x9b ok", snippet="api_key=sk-abcdefghijklmnop1234")], NOW
    )
    line = index.lines[1]
    assert "alice" not in line and "~/x ok" in line and "\u202e" not in line and "\x07" not in line
    assert "sk-abcdefghijklmnop1234" not in line and "REDACTED" in line


def test_room_in_a_block_shows_fewer_lines_than_the_standalone_index() -> None:
    rows = [_c(i, title=f"decision number {i}") for i in range(1, 30)]
    alone = bi.build("p", rows, NOW)
    squeezed = bi.build("p", rows, NOW, room_units=400)
    assert squeezed.shown < alone.shown
    assert sum(len(line) + 1 for line in squeezed.lines) - 1 <= 400
