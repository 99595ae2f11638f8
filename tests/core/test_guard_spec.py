"""A guard proposal's checks, on plain values: what passes them is exactly what the PreToolUse hook then fires on,
and no text given as a pattern or an example makes the check raise."""

from __future__ import annotations

import json
import re

from hypothesis import given, settings
from hypothesis import strategies as st

from memesh.core import guards

OTHERS = ["ls -la", "git status --short"]
# A word found inside one of the other commands ("status", "-short") would rightly be refused as too broad.
words = st.text(alphabet="abcdefghijklmnopqrstuvwxyz-_", min_size=6, max_size=30).filter(
    lambda word: not any(word in other for other in OTHERS)
)


@settings(max_examples=200)
@given(word=words, prefix=st.sampled_from(["", "sudo ", "cd app && "]))
def test_a_guard_that_passes_fires_on_its_examples_and_not_on_the_others(word: str, prefix: str) -> None:
    pattern = re.escape(word)
    matching = [word, f"{prefix}{word} --force"]
    others = OTHERS
    assert guards.check_spec(pattern, "careful", matching, others) == []
    stored = guards.accepted_guard(
        pattern, "careful", matching, others, proposal_id=1, accepted_at="t", project="app~" + "a" * 32
    )
    parsed = guards.parse(7, "lesson", json.dumps(stored), "first observation")
    assert parsed is not None
    for command in matching:
        assert guards.warnings([parsed], command, "app~" + "a" * 32) == ["- careful (lesson lesson) [mem:7]"]
        assert guards.warnings([parsed], command, "other~" + "a" * 32) == []
    for command in others:
        assert guards.warnings([parsed], command, "app~" + "a" * 32) == []


@settings(max_examples=300)
@given(
    pattern=st.text(max_size=250), message=st.text(max_size=300), examples=st.lists(st.text(max_size=50), max_size=4)
)
def test_any_text_is_judged_without_raising(pattern: str, message: str, examples: list[str]) -> None:
    problems = guards.check_spec(pattern, message, examples, examples)
    assert isinstance(problems, list)
    assert all(isinstance(problem, str) and ":" in problem for problem in problems)


def test_each_routine_command_is_a_reason_to_refuse() -> None:
    problems = guards.check_spec("^(ls|git status|git diff|npm test|echo ok|cd \\.\\.)$", "m", ["ls"] * 2, ["x", "y"])
    assert len([p for p in problems if "routine command" in p]) == len(guards.BENIGN_COMMANDS)
