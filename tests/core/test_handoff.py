"""The Stop hook's handoff rules: fenced code out, secrets redacted, 80 cleaned characters, autoCapture."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from memesh.core import handoff

LONG = "We moved the session store to WAL and the flaky test now passes; next, measure the hook start-up path."


def test_a_long_enough_reply_is_captured_as_cleaned_text() -> None:
    assert handoff.decide(LONG, auto_capture=True).text == LONG


def test_autocapture_off_skips() -> None:
    decision = handoff.decide(LONG, auto_capture=False)
    assert decision.text is None and decision.reason == "autoCapture is off"


def test_fenced_code_is_removed_before_counting() -> None:
    reply = "Done.\n```python\n" + "x = 1\n" * 50 + "```\nShort tail."
    decision = handoff.decide(reply, auto_capture=True)
    assert decision.text is None and decision.reason is not None and "80" in decision.reason
    kept = handoff.decide(LONG + "\n~~~\nsecret code\n~~~\n", auto_capture=True).text
    assert kept is not None and "secret code" not in kept


def test_an_unclosed_fence_runs_to_the_end() -> None:
    kept = handoff.decide(LONG + "\n```\nprint('cut off", auto_capture=True).text
    assert kept == LONG


def test_credentials_are_redacted() -> None:
    kept = handoff.decide(LONG + " The key was api_key=abcd1234efgh5678.", auto_capture=True).text
    assert kept is not None and "abcd1234efgh5678" not in kept and "***REDACTED***" in kept


@given(st.text())
def test_any_reply_either_captures_80_clean_characters_or_says_why(reply: str) -> None:
    decision = handoff.decide(reply, auto_capture=True)
    if decision.text is None:
        assert decision.reason
    else:
        assert len(decision.text) >= handoff.MIN_CHARS and "\x00" not in decision.text
