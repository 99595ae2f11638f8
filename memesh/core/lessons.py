"""How a lesson is named, classified and written down: pure helpers behind the learn operation."""

from __future__ import annotations

import hashlib
import re
import unicodedata

from memesh.core.clean import REDACTED

DEFAULT_SEVERITY = "minor"
_WORD_BREAK = re.compile(r"[^a-z0-9\u4e00-\u9fff]+")
_SPACES = re.compile(r"\s+")
READABLE_MAX = 71
NO_PROJECT = "no-project"


def error_pattern(error: str) -> str:
    """A coarse class of the error, from its text: the `error-pattern:` tag."""
    text = error.lower()
    if "null" in text or "undefined" in text or "cannot read prop" in text:
        return "null-reference"
    if "type" in text and ("error" in text or "mismatch" in text):
        return "type-error"
    if "import" in text or "module not found" in text or "cannot find" in text:
        return "import-missing"
    if "config" in text or "env" in text or "environment" in text:
        return "config-error"
    if "test" in text and ("fail" in text or "assert" in text):
        return "test-failure"
    if "build" in text or "compile" in text or "tsc" in text:
        return "build-error"
    return "other"


def lesson_slug(error: str) -> str:
    """The first eight words of the error, then 8 hex of its hash: the same error always gives the same slug."""
    normalized = _SPACES.sub(" ", unicodedata.normalize("NFKC", error).strip()).lower()
    words = [word for word in _WORD_BREAK.sub(" ", normalized).split() if len(word) > 1][:8]
    readable = "-".join(words) or "unspecified"
    return f"{readable[:READABLE_MAX]}-{hashlib.sha256(normalized.encode()).hexdigest()[:8]}"


def lesson_name(project: str | None, error: str) -> str:
    return f"lesson-{project or NO_PROJECT}-{lesson_slug(error)}"


def lesson_observations(error: str, fix: str, root_cause: str | None, prevention: str | None) -> list[str]:
    """One line per field the caller stated, in the spec's order: a field left out (or blank) is not written, since
    a placeholder such as "Root cause: not specified" would be recalled as if someone had said it."""
    fields = (("Error", error), ("Root cause", root_cause), ("Fix", fix), ("Prevention", prevention))
    return [f"{label}: {value}" for label, value in fields if value is not None and value.strip()]


def only_credentials(redacted_error: str) -> bool:
    """True when nothing but redaction markers is left of the error text."""
    return not redacted_error.replace(REDACTED, "").strip()
