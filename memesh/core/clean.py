"""Cleaning of stored text: control characters out, credential-shaped substrings replaced with ***REDACTED***.

This is the one cleaner. Operations run text through it as they decide what to store, and the store runs every
string of every write through it again (`memesh.store.sqlite_writes`): cleaning is idempotent, so text that passed
is unchanged, and text a code path forgot to clean is cleaned there rather than stored raw. Tags, types and relation
types are redacted like any text; a name is the key memories are addressed by, so one holding a credential is
refused rather than silently rewritten (see remembering), and names are compared in Unicode NFC. What counts as a
credential is the rule catalogue in `memesh.core.secret_formats`.

Terminal safety: C0 and C1 control characters (other than newline and tab) and bidi overrides and isolates are
removed, so a stored string cannot drive the terminal that prints it (OSC 52 clipboard writes, retitling, text
hidden or reordered). Zero-width characters and soft hyphens are kept in ordinary text (emoji sequences and some
scripts need them) but cannot hide a credential: a text holding one is also matched with them taken out.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable

from memesh.core import secret_rules
from memesh.core.lazy_pattern import LazyPattern, plain_ascii
from memesh.core.secret_formats import CATALOGUE, KEY_BLOCK_MARKERS
from memesh.core.storable import to_storable

REDACTED = secret_rules.REDACTED

# C0 controls other than tab and newline, DEL, C1 controls, and the bidi overrides and isolates (LRE RLE PDF LRO RLO,
# LRI RLI FSI PDI). (A carriage return before a newline is dropped first.)
# These two are compiled when text that is not plain ASCII first needs them (memesh.core.lazy_pattern).
_CONTROL = LazyPattern("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
_NAME_WHITESPACE = re.compile(r"[\r\n\t]+")
# Characters that draw nothing: soft hyphen, Mongolian vowel separator, zero-width space/non-joiner/joiner,
# LRM/RLM, word joiner and the invisible operators, ALM, the combining grapheme joiner, BOM.
_INVISIBLE = LazyPattern("[\u00ad\u034f\u061c\u180e\u200b-\u200f\u2060-\u2064\ufeff]")  # none is ASCII


def strip_controls(text: str) -> str:
    """Windows line ends (`\\r\\n`) read as `\\n`; every other control character except newline and tab is removed,
    a lone `\\r` included, with C1 controls and bidi overrides and isolates."""
    text = text.replace("\r\n", "\n")
    return text if plain_ascii(text, tab_newline=True) else _CONTROL.sub("", text)


def redact(text: str) -> str:
    """`text` with every credential-shaped substring replaced by ***REDACTED***, repeated until nothing changes.

    A text holding an invisible character (zero-width, soft hyphen) is also read without them; when that reading
    holds a credential, the text is stored as that reading, redacted, so `pass\u200bword=…` cannot slip through.
    """
    if not text.isascii() and _INVISIBLE.search(text) is not None:
        visible = _INVISIBLE.sub("", text)
        redacted = _redact(visible)
        if redacted != visible:
            return redacted
    return _redact(text)


def _redact(text: str) -> str:
    for _ in range(8):
        before = text
        lower = text.lower()
        for rule in CATALOGUE.rules_for(text, lower):
            redacted = rule.apply(text, lower)
            if redacted != text:
                text, lower = redacted, redacted.lower()
        if text == before:
            break
    return text


def clean_text(text: str) -> str:
    """What is stored for one piece of free text: controls stripped, secrets redacted, lone surrogates replaced."""
    return to_storable(redact(strip_controls(text)))


def clean_all(texts: Iterable[str]) -> list[str]:
    """The texts of one write as stored (its observations, in order): each cleaned, and a private key written across
    them redacted whole. The memory tool stores a file one line per observation and `remember` takes a list, so a
    key's BEGIN line, body and END line can arrive as separate texts: every text after a BEGIN line that its own text
    does not close is redacted, up to and including the END line (the text after it is kept), or to the last text of
    the write when no END line follows, as a single text cut off after its BEGIN line is redacted to its end. (The
    same for a PuTTY key file's private lines, up to their MAC.) A text is cleaned the same way whether it reaches
    the store alone or in a write: redacting more of a write never makes a text unclean."""
    cleaned: list[str] = []
    inside = False
    for given in texts:
        text, inside = _after_key(given) if inside else (given, False)
        cleaned.append(clean_text(text))
        if not inside:
            inside = _opens_key(text)
    return cleaned


def _visible(text: str) -> str:
    """`text` as it is read: controls and characters that draw nothing taken out."""
    text = strip_controls(text)
    return text if text.isascii() else _INVISIBLE.sub("", text)


def _opens_key(text: str) -> bool:
    """Whether `text` begins key material (a private key's BEGIN line, a PuTTY file's private lines) that it does
    not end."""
    visible = _visible(text)
    lower = visible.lower()
    for literal, begin, end in KEY_BLOCK_MARKERS:
        if literal in lower:
            begins = list(re.finditer(begin, visible, re.IGNORECASE))
            if begins and re.search(end, visible[begins[-1].end() :], re.IGNORECASE) is None:
                return True
    return False


def _after_key(text: str) -> tuple[str, bool]:
    """A text inside key material begun earlier in the write: REDACTED up to where the key ends, with what follows
    (and False), or REDACTED whole when the key goes on (and True)."""
    visible = _visible(text)
    ends = [re.search(end, visible, re.IGNORECASE) for _, _, end in KEY_BLOCK_MARKERS]
    found = [match.end() for match in ends if match is not None]
    if not found:
        return REDACTED, True
    return REDACTED + visible[min(found) :], False


def clean_name(name: str) -> str:
    """A name or title on one line: runs of CR, LF and tab become one space, then trimmed, in Unicode NFC (so `café`
    typed as e + combining accent and as é is one name)."""
    return unicodedata.normalize("NFC", _NAME_WHITESPACE.sub(" ", name).strip())


def clean_key(name: str) -> str:
    """A name, project or relation target as stored and compared: controls out, on one line, NFC. Not redacted:
    a key holding a credential is refused (`holds_secret`), never silently rewritten into another key."""
    return clean_name(to_storable(strip_controls(name)))


def clean_label(text: str) -> str:
    """A type, relation type or tag as stored: cleaned like any text, on one line, NFC."""
    return clean_name(clean_text(text))


def holds_secret(text: str) -> bool:
    """Whether cleaning would redact part of `text`."""
    return redact(text) != text


def is_clean(text: str) -> bool:
    """Whether `text` is what the cleaner would store for it (every cleaned string is)."""
    return clean_text(text) == text
