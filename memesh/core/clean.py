"""Cleaning of stored text: control characters out, credential-shaped substrings replaced with ***REDACTED***.

Every writer runs text through here before it reaches the store, so a secret pasted into a memory never lands in
the database or the keyword index. Tags, types and relation types are redacted like any text; a name is the key
memories are addressed by, so one holding a credential is refused rather than silently rewritten (see remembering).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from memesh.core.storable import to_storable

REDACTED = "***REDACTED***"

# C0 controls other than tab and newline, and DEL. (A carriage return before a newline is dropped first.)
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f]")
_NAME_WHITESPACE = re.compile(r"[\r\n\t]+")

_I = re.IGNORECASE
_SECRET_KEY = (
    r"(?:api[-_]?key|secret[-_]?access[-_]?key|access[-_]?key|secret[-_]?key|client[-_]?secret|access[-_]?token"
    r"|auth[-_]?token|refresh[-_]?token|session[-_]?token|token|secret|password|passwd|pwd|signature)"
)
_SECRET_KEY_COLON = _SECRET_KEY.replace("|pwd", "")  # `pwd: /home/me` is a working directory, not a password
# Credentials inside database and broker URLs (the host stays readable).
_DATABASE_URL = re.compile(
    r"(?:postgres|postgresql|mysql|mariadb|mongodb(?:\+srv)?|redis|rediss|amqp|amqps)://[^\s:@/]+:[^\s:@/]+@", _I
)
# key=value assignments, also as environment names (DB_PASSWORD=, PGPASSWORD=, AWS_SECRET_ACCESS_KEY=), with a value
# of any useful length: `password=hunter2` is as secret as a long one.
_ASSIGNED = re.compile(
    rf"(?<![A-Za-z0-9])[A-Za-z0-9_]*?{_SECRET_KEY}[\"']?\s*=\s*(?:\"[^\"\n]{{3,}}\"|'[^'\n]{{3,}}'|[^&\s\"'<>]{{3,}})",
    _I,
)
# key: value (YAML, JSON, headers), where prose uses colons too: only a value with a digit or a symbol in it, which a
# word such as "required" has not.
_COLON = re.compile(
    rf"(?<![A-Za-z0-9])[A-Za-z0-9_]*?{_SECRET_KEY_COLON}[\"']?\s*:\s*[\"']?(?=[^\s\"']*[0-9_+/=!@#$%^&*.-])[^\s\"'<>,]{{6,}}",
    _I,
)
# Every pattern needs some literal (a prefix such as `ghp_`, `://`, a key word), so before running one, a substring
# search (what str.find does fastest) on the text's lower-case copy says whether it could match at all. Most text
# holds none of them, and a memory is cleaned as dozens of short strings, where running 15 regexes on each was the
# larger part of an import's time. The assignment patterns also try every word as a key-name prefix, about 5 ms per
# 20 KB, so they wait for a key word and the `=` or `:` they need.
_KEY_WORDS = ("key", "token", "secret", "passw", "pwd", "signature")


@dataclass(frozen=True)
class _Rule:
    """A secret pattern and what a text must hold for it to match: one of `literals` (searched in the lower-case
    text), and `sign` too when given."""

    pattern: re.Pattern[str]
    literals: tuple[str, ...]
    sign: str | None = None

    def could_match(self, text: str, lower: str) -> bool:
        return (self.sign is None or self.sign in text) and any(literal in lower for literal in self.literals)


# In the order they are applied; each pattern is case-insensitive, as credential prefixes are typed in either case.
_RULES: tuple[_Rule, ...] = (
    # PEM private keys, with their END line, or to the end of the text when it was cut off.
    _Rule(
        re.compile(r"-----BEGIN[A-Z ]*PRIVATE KEY-----(?:.*?-----END[A-Z ]*PRIVATE KEY-----|.*\Z)", _I | re.DOTALL),
        ("-----begin",),
    ),
    _Rule(_DATABASE_URL, ("://",)),
    _Rule(re.compile(r"eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}", _I), ("eyj",)),  # JWT
    _Rule(re.compile(r"SG\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,}", _I), ("sg.",)),  # SendGrid
    _Rule(re.compile(r"[srp]k_(?:live|test)_[A-Za-z0-9]{16,}", _I), ("k_live_", "k_test_")),  # Stripe
    _Rule(re.compile(r"npm_[A-Za-z0-9]{36}", _I), ("npm_",)),  # npm
    _Rule(re.compile(r"(?<![A-Za-z0-9_])sk[-_][^\s\"\\]{4,}[A-Za-z0-9]", _I), ("sk-", "sk_")),  # Anthropic/OpenAI
    _Rule(re.compile(r"Bearer(?:\s|\\[nrt])+[A-Za-z0-9_.\-]{16,}", _I), ("bearer",)),
    # Authorization headers of other schemes (Bearer is above).
    _Rule(re.compile(r"Authorization\s*:\s*(?:Basic|Token|Digest)\s+[A-Za-z0-9+/=._~-]{6,}", _I), ("authorization",)),
    _Rule(_ASSIGNED, _KEY_WORDS, sign="="),
    _Rule(_COLON, _KEY_WORDS, sign=":"),
    _Rule(
        re.compile(r"(?:ghp|gho|gh[sur])_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{20,}", _I),  # GitHub
        ("ghp_", "gho_", "ghs_", "ghu_", "ghr_", "github_pat_"),
    ),
    _Rule(re.compile(r"A(?:KIA|SIA)[A-Z0-9]{16}", _I), ("akia", "asia")),  # AWS access key id
    _Rule(re.compile(r"AIza[A-Za-z0-9_-]{30,}", _I), ("aiza",)),  # Google API key
    _Rule(re.compile(r"xox[baprs]-[A-Za-z0-9-]{10,}", _I), ("xoxb-", "xoxa-", "xoxp-", "xoxr-", "xoxs-")),  # Slack
)
SECRET_PATTERNS: tuple[re.Pattern[str], ...] = tuple(rule.pattern for rule in _RULES)
# One search for any rule's literal: text with none of them (most of it) is returned as it is, in a microsecond.
_ANY_LITERAL = re.compile(
    "|".join(re.escape(word) for word in sorted({w for rule in _RULES for w in rule.literals}, key=len, reverse=True))
)


def strip_controls(text: str) -> str:
    """Windows line ends (`\\r\\n`) read as `\\n`; every other control character except newline and tab is removed,
    a lone `\\r` included."""
    return _CONTROL.sub("", text.replace("\r\n", "\n"))


def redact(text: str) -> str:
    """`text` with every credential-shaped substring replaced by ***REDACTED***, repeated until nothing changes."""
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
    """A name or title on one line: runs of CR, LF and tab become one space, then trimmed."""
    return _NAME_WHITESPACE.sub(" ", name).strip()
