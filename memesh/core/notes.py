"""Derive a structured memory (title, observations, name) from free text: the `note` form of remember."""

from __future__ import annotations

from memesh.core.clean import redact, strip_controls
from memesh.core.lazy_pattern import LazyPattern
from memesh.core.storable import to_storable
from memesh.records import dataclass

TITLE_MAX = 200
OBSERVATION_MAX = 10_000
SLUG_MAX = 60
NOTE_TYPE = "note"
ELLIPSIS = "…"

_MARKER = LazyPattern(r"^\s{0,3}(?:#{1,6}\s+|[-*+]\s+|\d+[.)]\s+)")
_LIST_ITEM = LazyPattern(r"^(?:[-*+]\s+|\d+[.)]\s+)")
_BLANK_LINE = LazyPattern(r"\n\s*\n")
_SPACES = LazyPattern(r"\s+")
_FIRST_SENTENCE = LazyPattern(r"^(.+?[.!?。！？])(?=\s|$)")
_NOT_SLUG = LazyPattern(r"[^a-z0-9]+")


@dataclass(frozen=True)
class DerivedNote:
    """What a note turns into; `cleaned` is the text the name's hash is taken over."""

    name: str
    title: str
    observations: list[str]
    cleaned: str


def clean_note(text: str) -> str:
    """The note after cleaning: newlines normalised, control characters removed, secrets redacted, trimmed."""
    return to_storable(redact(strip_controls(text))).strip().strip("\ufeff").strip()


def shorten(text: str, limit: int) -> str:
    """`text` trimmed; over `limit` characters it is cut to limit-1 and ends in `…`."""
    text = text.strip()
    if len(text) <= limit:
        return text
    return text[: limit - 1].rstrip() + ELLIPSIS


def title_from_line(line: str) -> str:
    """A title from one line: a line over 200 characters is cut to its first sentence, then to 200."""
    if len(line) > TITLE_MAX:
        sentence = _FIRST_SENTENCE.match(line)
        if sentence:
            line = sentence.group(1)
    return shorten(line, TITLE_MAX) or NOTE_TYPE


def split_observations(text: str) -> list[str]:
    """Paragraphs (blank-line separated) become observations; a paragraph of list items gives one per item."""
    parts: list[str] = []
    for block in _BLANK_LINE.split(text):
        lines = [line.strip() for line in block.split("\n") if line.strip()]
        if not lines:
            continue
        if all(_LIST_ITEM.match(line) for line in lines):
            parts.extend(_MARKER.sub("", line) for line in lines)
        else:
            parts.append(" ".join(lines))
    collapsed = (_SPACES.sub(" ", part).strip() for part in parts)
    return [shorten(part, OBSERVATION_MAX) for part in collapsed if part]


def slug(title: str) -> str:
    """Lower-case ASCII letters and digits joined by `-`, at most 60 characters; `note` when none are left."""
    text = _NOT_SLUG.sub("-", title.lower()).strip("-")[:SLUG_MAX].rstrip("-")
    return text or NOTE_TYPE


def _first_line_and_body(cleaned: str) -> tuple[str, str, list[str]]:
    """(the first line as written, the same without its heading or list marker, the body's observations)."""
    first, _, rest = cleaned.partition("\n")
    return first, _SPACES.sub(" ", _MARKER.sub("", first).strip()), split_observations(rest)


def _observations(raw_first: str, first_line: str, title: str, body: list[str], *, titled: bool) -> list[str]:
    # The first line is left out only where it survives whole as the derived title; otherwise it is kept.
    if title == first_line and body and not titled:
        return body
    if title != first_line and not titled:  # the title had to be cut: the line is kept in full, as written
        return [shorten(_SPACES.sub(" ", raw_first), OBSERVATION_MAX), *body]
    return [*split_observations(first_line), *body]


def note_name(title: str, cleaned: str) -> str:
    """`<slug of title>-<first 8 hex of SHA-256 of the cleaned text>`: the same text twice names one memory."""
    import hashlib  # here: hashlib loads OpenSSL, and SessionStart imports this module (through handoff) for shorten

    return f"{slug(title)}-{hashlib.sha256(cleaned.encode()).hexdigest()[:8]}"


def derive_note(note: str) -> DerivedNote | None:
    """Title, observations and name derived from `note`; None when nothing is left after cleaning."""
    cleaned = clean_note(note)
    if not cleaned:
        return None
    raw_first, first_line, body = _first_line_and_body(cleaned)
    title = title_from_line(first_line)
    observations = _observations(raw_first, first_line, title, body, titled=False)
    return DerivedNote(name=note_name(title, cleaned), title=title, observations=observations, cleaned=cleaned)


def text_observations(text: str, *, titled: bool = False) -> list[str]:
    """The observations free text contributes beside explicit ones: exactly what the note form derives from it,
    plus its first line when the caller's own title takes the place of the derived one (`titled`), so that no
    line of the text is dropped. Empty when nothing is left after cleaning."""
    cleaned = clean_note(text)
    if not cleaned:
        return []
    raw_first, first_line, body = _first_line_and_body(cleaned)
    return _observations(raw_first, first_line, title_from_line(first_line), body, titled=titled)
