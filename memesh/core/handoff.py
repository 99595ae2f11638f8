"""The session handoff: what the Stop hook keeps of the agent's last reply, for the next session to read. Pure.

One handoff memory per exact project, replaced on every capture. Fenced code is removed (it is the work, not the
state of it), credential-shaped text is redacted and control characters are stripped; fewer than 80 characters
left is not worth a handoff, and a skipped capture leaves the previous one as it was. autoCapture off skips it.
Shared by the Stop hook and the Hermes integration.
"""

from __future__ import annotations

import re

from memesh.core.clean import clean_text
from memesh.core.lazy_pattern import LazyPattern
from memesh.core.notes import OBSERVATION_MAX, shorten
from memesh.records import dataclass

HANDOFF_TYPE = "session-handoff"
MIN_CHARS = 80
# ``` or ~~~ fences, closed or running to the end of the reply (a reply cut off mid-block).
_FENCED = LazyPattern(r"^[ \t]*(`{3,}|~{3,})[^\n]*\n.*?(?:^[ \t]*\1[ \t]*$|\Z)", re.MULTILINE | re.DOTALL)
_BLANK_LINES = LazyPattern(r"\n{3,}")


def entity_name(project: str) -> str:
    """The one handoff memory of a project."""
    return f"session-handoff:{project}"


def clean_reply(text: str) -> str:
    """The reply as a handoff stores it: fenced code removed, controls stripped, secrets redacted, trimmed."""
    without_code = _FENCED.sub("", text.replace("\r\n", "\n"))
    return _BLANK_LINES.sub("\n\n", clean_text(without_code)).strip()


@dataclass(frozen=True)
class Decision:
    """Capture `text`, or skip with `reason` (a fixed phrase the outcome record and doctor show)."""

    text: str | None
    reason: str | None = None


def decide(reply: str | None, *, auto_capture: bool) -> Decision:
    """Whether a reply becomes the handoff, and what is stored."""
    if not auto_capture:
        return Decision(None, "autoCapture is off")
    if reply is None or not reply.strip():
        return Decision(None, "no assistant reply to capture")
    cleaned = clean_reply(reply)
    if len(cleaned) < MIN_CHARS:
        return Decision(None, f"reply under {MIN_CHARS} characters after cleaning")
    return Decision(shorten(cleaned, OBSERVATION_MAX))
