"""Cleaning of stored text: control characters out, credential-shaped substrings replaced with ***REDACTED***.

This is the one cleaner. Operations run text through it as they decide what to store, and the store runs every
string of every write through it again (`memesh.store.sqlite_writes`): cleaning is idempotent, so text that passed
is unchanged, and text a code path forgot to clean is cleaned there rather than stored raw. Tags, types and relation
types are redacted like any text; a name is the key memories are addressed by, so one holding a credential is
refused rather than silently rewritten (see remembering), and names are compared in Unicode NFC.

Terminal safety: C0 and C1 control characters (other than newline and tab) and bidi overrides and isolates are
removed, so a stored string cannot drive the terminal that prints it (OSC 52 clipboard writes, retitling, text
hidden or reordered). Zero-width characters and soft hyphens are kept in ordinary text (emoji sequences and some
scripts need them) but cannot hide a credential: a text holding one is also matched with them taken out.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache

from memesh.core.storable import to_storable

REDACTED = "***REDACTED***"

# C0 controls other than tab and newline, DEL, C1 controls, and the bidi overrides and isolates (LRE RLE PDF LRO RLO,
# LRI RLI FSI PDI). (A carriage return before a newline is dropped first.)
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
_NAME_WHITESPACE = re.compile(r"[\r\n\t]+")
# Characters that draw nothing: soft hyphen, Mongolian vowel separator, zero-width space/non-joiner/joiner,
# LRM/RLM, word joiner and the invisible operators, ALM, the combining grapheme joiner, BOM.
_INVISIBLE = re.compile("[\u00ad\u034f\u061c\u180e\u200b-\u200f\u2060-\u2064\ufeff]")

_I = re.IGNORECASE
_SECRET_KEY = (
    r"(?:api[-_]?key|secret[-_]?access[-_]?key|access[-_]?key|secret[-_]?key|client[-_]?secret|access[-_]?token"
    r"|auth[-_]?token|refresh[-_]?token|session[-_]?token|private[-_]?key|credentials?|token|secret|password|passwd"
    r"|pwd|signature)"
)
_SECRET_KEY_COLON = _SECRET_KEY.replace("|pwd", "")  # `pwd: /home/me` is a working directory, not a password
# The user:password part of any URL (`https://user:pw@host`, `redis://:pw@host`, a database URL whose password holds
# `/`); the scheme and host stay readable. The password runs to the last `@` before whitespace or a quote.
_URL_USERINFO = r"(?<=://)[^\s:@/?#\"'<>]*:[^\s\"'<>]*(?=@[^\s@\"'<>]*(?:[\s\"'<>]|\Z))"
# An opening quote as JSON text holds it, and as JSON inside a JSON string holds it (`\"password\":\"…\"`).
_Q = r"(?:\\*[\"'])"
# key=value assignments, also as environment names (DB_PASSWORD=, PGPASSWORD=, AWS_SECRET_ACCESS_KEY=), with a value
# of any useful length: `password=hunter2` is as secret as a long one.
_ASSIGNED = (
    rf"(?<![A-Za-z0-9])[A-Za-z0-9_]*?{_SECRET_KEY}{_Q}?"
    rf"\s*=\s*(?:\\*\"[^\"\n\\]{{3,}}|'[^'\n]{{3,}}'|[^&\s\"'<>\\]{{3,}})"
)
# key: value (YAML, JSON, headers), where prose uses colons too: only a value with a digit or a symbol in it, which a
# word such as "required" has not.
_COLON = (
    rf"(?<![A-Za-z0-9])[A-Za-z0-9_]*?{_SECRET_KEY_COLON}{_Q}?\s*:\s*{_Q}?(?=[^\s\"'\\]*[0-9_+/=!@#$%^&*.-])"
    r"[^\s\"'<>,\\]{6,}"
)
# Every pattern needs some literal (a prefix such as `ghp_`, `://`, a key word), so before running one, a substring
# search (what str.find does fastest) on the text's lower-case copy says whether it could match at all. Most text
# holds none of them, and a memory is cleaned as dozens of short strings, where running 15 regexes on each was the
# larger part of an import's time. The assignment patterns also try every word as a key-name prefix, about 5 ms per
# 20 KB, so they wait for a key word and the `=` or `:` they need.
_KEY_WORDS = ("key", "token", "secret", "passw", "pwd", "signature", "credential")


@dataclass(frozen=True)
class _Rule:
    """A secret pattern and what a text must hold for it to match: one of `literals` (searched in the lower-case
    text), and `sign` too when given. The pattern is compiled on first use: compiling all of them cost every process
    that cleans or displays text ~10 ms at start-up, and most text never needs one."""

    source: str
    literals: tuple[str, ...]
    sign: str | None = None
    flags: int = _I

    @property
    def pattern(self) -> re.Pattern[str]:
        return _compiled(self.source, self.flags)

    def could_match(self, text: str, lower: str) -> bool:
        return (self.sign is None or self.sign in text) and any(literal in lower for literal in self.literals)


@cache
def _compiled(source: str, flags: int) -> re.Pattern[str]:
    return re.compile(source, flags)


# In the order they are applied; each pattern is case-insensitive, as credential prefixes are typed in either case.
_RULES: tuple[_Rule, ...] = (
    # PEM and PGP private keys, with their END line, or to the end of the text when it was cut off.
    _Rule(
        r"-----BEGIN[A-Z ]*PRIVATE KEY(?: BLOCK)?-----(?:.*?-----END[A-Z ]*PRIVATE KEY(?: BLOCK)?-----|.*\Z)",
        ("-----begin",),
        flags=_I | re.DOTALL,
    ),
    _Rule(_URL_USERINFO, ("://",), sign="@"),
    _Rule(r"eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}", ("eyj",)),  # JWT
    _Rule(r"SG\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,}", ("sg.",)),  # SendGrid
    _Rule(r"[srp]k_(?:live|test)_[A-Za-z0-9]{16,}", ("k_live_", "k_test_")),  # Stripe
    _Rule(r"npm_[A-Za-z0-9]{36}", ("npm_",)),  # npm
    _Rule(r"(?<![A-Za-z0-9_])sk[-_][^\s\"\\]{4,}[A-Za-z0-9]", ("sk-", "sk_")),  # Anthropic/OpenAI
    _Rule(r"Bearer(?:\s|\\[nrt])+[A-Za-z0-9_.\-]{16,}", ("bearer",)),
    # Authorization headers of other schemes (Bearer is above).
    _Rule(r"Authorization\s*:\s*(?:Basic|Token|Digest)\s+[A-Za-z0-9+/=._~-]{6,}", ("authorization",)),
    _Rule(_ASSIGNED, _KEY_WORDS, sign="="),
    _Rule(_COLON, _KEY_WORDS, sign=":"),
    _Rule(
        r"(?:ghp|gho|gh[sur])_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{20,}",  # GitHub
        ("ghp_", "gho_", "ghs_", "ghu_", "ghr_", "github_pat_"),
    ),
    _Rule(r"A(?:KIA|SIA)[A-Z0-9]{16}", ("akia", "asia")),  # AWS access key id
    _Rule(r"AIza[A-Za-z0-9_-]{30,}", ("aiza",)),  # Google API key
    _Rule(r"xox[baprs]-[A-Za-z0-9-]{10,}", ("xoxb-", "xoxa-", "xoxp-", "xoxr-", "xoxs-")),  # Slack
)
# One search for any rule's literal: text with none of them (most of it) is returned as it is, in a microsecond.
_ANY_LITERAL = re.compile(
    "|".join(re.escape(word) for word in sorted({w for rule in _RULES for w in rule.literals}, key=len, reverse=True))
)


def strip_controls(text: str) -> str:
    """Windows line ends (`\\r\\n`) read as `\\n`; every other control character except newline and tab is removed,
    a lone `\\r` included, with C1 controls and bidi overrides and isolates."""
    return _CONTROL.sub("", text.replace("\r\n", "\n"))


def redact(text: str) -> str:
    """`text` with every credential-shaped substring replaced by ***REDACTED***, repeated until nothing changes.

    A text holding an invisible character (zero-width, soft hyphen) is also read without them; when that reading
    holds a credential, the text is stored as that reading, redacted, so `pass\u200bword=…` cannot slip through.
    """
    if _INVISIBLE.search(text) is not None:
        visible = _INVISIBLE.sub("", text)
        redacted = _redact(visible)
        if redacted != visible:
            return redacted
    return _redact(text)


def _redact(text: str) -> str:
    if _ANY_LITERAL.search(text.lower()) is None:
        return text
    for _ in range(8):
        before = text
        lower = text.lower()
        for rule in _RULES:
            if rule.could_match(text, lower):
                text = rule.pattern.sub(REDACTED, text)
        if text == before:
            break
    return text


def clean_text(text: str) -> str:
    """What is stored for one piece of free text: controls stripped, secrets redacted, lone surrogates replaced."""
    return to_storable(redact(strip_controls(text)))


def clean_all(texts: Iterable[str]) -> list[str]:
    return [clean_text(text) for text in texts]


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
