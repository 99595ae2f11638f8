"""Line hygiene for everything MeMesh puts in front of an agent on its own: one line, no control or bidi characters,
no credentials, no user paths, measured in the units the limits are stated in. Pure."""

from __future__ import annotations

import re

from memesh.core.clean import redact
from memesh.core.lazy_pattern import LazyPattern, plain_ascii
from memesh.records import dataclass

# The mark of a cut line, as memesh.core.notes cuts (not imported from there: notes loads hashlib and its own
# patterns, which a hook displaying memories does not need).
ELLIPSIS = "…"

# Runs of C0/C1 controls, DEL, and the bidi override/isolate characters (which can make a line read differently from
# what it holds). Newlines and tabs are whitespace and are folded with the other whitespace below.
# Compiled when text that is not plain ASCII first needs it (memesh.core.lazy_pattern).
_CONTROL_RUN = LazyPattern("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]+")
_SPACES = re.compile(r"\s+")
# A home folder names its owner: shown as ~ (the rest of the path stays, it is what makes the line useful).
_USER_PATH = re.compile(r"(?:/home/|/Users/|[A-Za-z]:\\Users\\)[^/\\\s]+|(?<![\w.])/root(?=[/\\\s]|$)")
FENCE_TAG = "memesh-memory"
# Stored text that spells the fence tag could close the fence early and put what follows outside it.
_FENCE_SPELLING = re.compile(r"<\s*/?\s*memesh-memory", re.IGNORECASE)


def utf16_units(text: str) -> int:
    """The length JavaScript gives `text`: UTF-16 code units (a character outside the BMP counts two)."""
    # Encoded in C (surrogatepass: a lone surrogate is one unit, as in JavaScript), not counted per character in
    # Python: a briefing measures ~300 lines, 20,000 characters.
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


def utf8_bytes(text: str) -> int:
    return len(text.encode("utf-8", "surrogatepass"))


def strip_control_chars(text: str) -> str:
    """Each run of control, DEL or bidi override/isolate characters replaced with one space."""
    return text if plain_ascii(text, tab_newline=True) else _CONTROL_RUN.sub(" ", text)


def redact_user_paths(text: str) -> str:
    return _USER_PATH.sub("~", text)


def clip_units(text: str, limit: int) -> str:
    """`text` cut to at most `limit` UTF-16 code units, ending in `…` when cut."""
    if utf16_units(text) <= limit:
        return text
    out: list[str] = []
    used = 0
    for char in text:
        width = 2 if ord(char) > 0xFFFF else 1
        if used + width > limit - 1:
            break
        out.append(char)
        used += width
    return "".join(out).rstrip() + ELLIPSIS


def safe_line(text: str, limit: int | None = None) -> str:
    """Stored text as one displayable line: controls and bidi marks out, whitespace folded, secrets and user paths
    redacted, the fence tag defused, then cut to `limit` code units."""
    line = _SPACES.sub(" ", strip_control_chars(text)).strip()
    line = _FENCE_SPELLING.sub("‹memesh-memory", redact_user_paths(redact(line)))
    return clip_units(line, limit) if limit is not None else line


AUTHOR_UNITS = 60  # a teammate's name on a memory line, at most


@dataclass(frozen=True)
class MemoryLine:
    """What a memory line shows: `- [type] title — first observation [mem:id]`."""

    id: int
    type: str
    title: str
    snippet: str | None
    by: str | None = None  # a teammate who wrote it (issue 32); None for the reader's own memories


def memory_line(memory: MemoryLine, *, title_units: int, snippet_units: int) -> str:
    title = safe_line(memory.title, title_units) or f"memory {memory.id}"
    snippet = safe_line(memory.snippet, snippet_units) if memory.snippet else ""
    kind = safe_line(memory.type, 40)
    body = f"{title} — {snippet}" if snippet and snippet != title else title
    if memory.by:
        verb = "decided by" if memory.type == "decision" else "by"
        body = f"{body} ({verb} {safe_line(memory.by, AUTHOR_UNITS)})"
    return f"- [{kind}] {body} [mem:{memory.id}]"
