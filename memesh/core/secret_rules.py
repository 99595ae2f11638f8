"""The machinery of the cleaner's credential rules: a rule, a group of rules and its gate, the test of whether a
value looks random, and which rules a text could match. The rules themselves, one per format, are the catalogue in
`memesh.core.secret_formats`.

Cost: most text holds no credential, and a memory is cleaned as dozens of short strings, so ordinary text must cost
next to nothing. Each group has a gate: a few substring searches, or for provider tokens one search for a run of 20
token characters, which every provider token has and prose does not. Only a group whose gate opens has its rules
tried, and each rule needs one of its own literals too. A rule is compiled the first time a text holds its literal,
and a rule whose match begins with its literal (`anchored`) is only tried where that literal occurs, rather than at
every character.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable, Iterable
from functools import cache, cached_property
from typing import Any, Final

from memesh.records import dataclass

REDACTED: Final = "***REDACTED***"


@dataclass(frozen=True, eq=False)
class Rule:
    """A secret pattern and what a text must hold for it to match: one of `literals` (searched in the lower-case
    text), and `sign` too when given (searched as typed).

    What is replaced is the match, or only its `secret` group when the pattern has one; with `judge`, only a `secret`
    group the judge finds secret (and that `context` accepts where it stands). `anchored`: every match begins with
    one of `literals`, so the pattern is tried only where one occurs. `precheck`: a test cheaper than the pattern
    that every text it matches passes (a rule with no literal of its own). `extend`: the match begins at a key word, and
    the identifier that key word ends (`DB_` in `DB_PASSWORD=…`) is replaced with it.
    """

    name: str
    source: str
    literals: tuple[str, ...]
    sign: str | None = None
    flags: int = 0
    anchored: bool = False
    extend: bool = False
    judge: Callable[[str], bool] | None = None
    context: Callable[[re.Match[str], str], bool] | None = None
    precheck: Callable[[str], bool] | None = None

    @cached_property
    def pattern(self) -> re.Pattern[str]:
        return re.compile(self.source, self.flags)

    def apply(self, text: str, lower: str) -> str:
        """`text` with this rule's matches redacted (`lower` is `text.lower()`)."""
        if self.sign is not None and self.sign not in text:
            return text
        if self.precheck is not None and not self.precheck(text):
            return text
        # A lower-case copy can be longer than the text (`İ`); its positions are then not the text's.
        if self.anchored and len(lower) == len(text):
            starts = self._starts(lower)
            if not starts:
                return text
            matches = self._anchored_matches(text, starts)
        elif any(literal in lower for literal in self.literals):
            pattern = self.pattern
            if not self.extend and self.judge is None and self.context is None and "secret" not in pattern.groupindex:
                return pattern.sub(REDACTED, text)
            matches = list(pattern.finditer(text))
        else:
            return text
        secret = "secret" in self.pattern.groupindex
        pieces: list[str] = []
        done = 0
        for match in matches:
            start, end = match.span("secret") if secret else match.span()
            if match.start() < done or start < done:
                continue
            if self.judge is not None and not self.judge(match["secret"]):
                continue
            if self.context is not None and not self.context(match, text):
                continue
            if self.extend:
                start = _identifier_start(text, start, done)
            pieces += [text[done:start], REDACTED]
            done = end
        return "".join(pieces) + text[done:] if pieces else text

    def _starts(self, lower: str) -> list[int]:
        """Where one of the literals begins, in order."""
        starts: list[int] = []
        for literal in self.literals:
            at = lower.find(literal)
            while at >= 0:
                starts.append(at)
                at = lower.find(literal, at + 1)
        return sorted(starts)

    def _anchored_matches(self, text: str, starts: list[int]) -> list[re.Match[str]]:
        """The matches beginning at `starts`, left to right and not overlapping, as a search would find them; a match
        the rule's judge or context refuses covers nothing, so a later start inside it is still tried (`keyboard
        DB_PASS=…`: the refused `key…board <value>` must not hide the `PASS=` assignment it spans)."""
        pattern = self.pattern
        found: list[re.Match[str]] = []
        done = 0
        for at in starts:
            if at >= done and (match := pattern.match(text, at)) is not None:
                if self.judge is not None and not self.judge(match["secret"]):
                    continue
                if self.context is not None and not self.context(match, text):
                    continue
                found.append(match)
                done = match.end()
        return found


@dataclass(frozen=True, eq=False)
class Group:
    """Rules tried only when the text holds one of `literals` (lower-case), or, with `long_run`, a run of 20 token
    characters; and with `signs`, one of them too (as typed). With `dispatch`, only the rules whose literals the text
    holds are tried, found with one search."""

    rules: tuple[Rule, ...]
    literals: tuple[str, ...] = ()
    long_run: bool = False
    signs: tuple[str, ...] = ()
    dispatch: bool = False  # many rules: find which of their literals the text holds in one search

    @cached_property
    def _finder(self) -> re.Pattern[str] | None:
        """One search for a group of many literals (a loop of `in` tests costs more past three)."""
        return re.compile(trie_pattern(self.literals)) if len(self.literals) > 3 else None

    def opens(self, lower: str) -> bool:
        """Whether the lower-case text holds one of the group's literals."""
        finder = self._finder
        if finder is not None:
            return finder.search(lower) is not None
        return any(literal in lower for literal in self.literals)


def _identifier_start(text: str, start: int, floor: int) -> int:
    """Where the identifier ending at `start` begins (ASCII letters, digits, `_`), not before `floor`."""
    while start > floor and text[start - 1].isascii() and (text[start - 1].isalnum() or text[start - 1] == "_"):
        start -= 1
    return start


# --- when a value looks random ------------------------------------------------------------------------------------

# The runs a value reads as (a capitalised or lower-case word, an upper-case run, a number), the separators between
# its pieces, a UUID, and a legacy Azure DevOps PAT (lower-case base32: random, yet with few runs). Compiled on first
# use, as the rules are: importing the cleaner should not pay for them.
_RUNS = r"[A-Z]?[a-z]+|[A-Z]+|[0-9]+"
_SEPARATORS = r"[-_./+~=:]+"
_UUID = r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"
_LEGACY_AZURE_DEVOPS = r"[a-z2-7]{52}"
MIN_RANDOM_LENGTH: Final = 16
MIN_ENTROPY: Final = 3.0  # bits per character
MIN_RUN_DENSITY: Final = 0.3  # runs per character, in a separator-free piece of at least 10 characters


def entropy(text: str) -> float:
    """Shannon entropy of `text`, in bits per character."""
    counts = Counter(text)
    return -sum(n / len(text) * math.log2(n / len(text)) for n in counts.values()) if text else 0.0


def looks_random(value: str) -> bool:
    """Whether a value (what follows a secret key word) looks like generated key material rather than a word, an
    identifier, a path, a URL, a number or a UUID.

    Entropy alone cannot tell them apart: `sqlite3.SQLITE_CANTOPEN` has more bits per character (4.3) than a random
    32-digit hex key (3.6). What a generated value has and a name has not is short runs: read as words and numbers,
    a name is a few long runs (`Max` `Retry` `Count`, `lease` `expires` `at` `ms`), while a random value changes
    between lower case, upper case and digits every character or two. So a value is random when it is at least 16
    characters long, has at least 3 bits of entropy per character (which `xxxxxxxxxxxxxxxx`, `aaaa1111bbbb2222` and
    other placeholders have not) and holds a separator-free piece of 10 or more characters with at least 0.3 runs
    per character. UUIDs (request, session and idempotency ids far more often than keys), paths and URLs are never
    random here.
    """
    if len(value) < MIN_RANDOM_LENGTH or "://" in value or value.startswith(("/", "~", ".")):
        return False
    if re.fullmatch(_UUID, value):
        return False
    if re.fullmatch(_LEGACY_AZURE_DEVOPS, value):
        return True
    if entropy(value) < MIN_ENTROPY:
        return False
    return any(
        len(piece) >= 10 and len(re.findall(_RUNS, piece)) / len(piece) >= MIN_RUN_DENSITY
        for piece in re.split(_SEPARATORS, value)
    )


# --- which groups a text opens --------------------------------------------------------------------------------------


def trie_pattern(words: Iterable[str]) -> str:
    """A regular expression that finds where any of `words` occurs, factored by shared prefixes (`gl(?:pat|dt)-`):
    the engine tries an alternation one branch at a time, so a factored one is several times faster. A word that
    continues another (`sk-` after `sk`) adds no place where a match is found, so it is left out."""
    trie: dict[str, Any] = {}
    for word in sorted(set(words)):
        node = trie
        for char in word:
            if "" in node:
                break
            node = node.setdefault(char, {})
        else:
            node.clear()
            node[""] = {}

    def emit(node: dict[str, Any]) -> str:
        if "" in node:
            return ""
        branches = [re.escape(char) + emit(child) for char, child in sorted(node.items())]
        return branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"

    return emit(trie)


def _dispatch(group: Group) -> tuple[re.Pattern[str], dict[str, tuple[Rule, ...]]]:
    """For a group of many rules: every place one of its rules' literals begins (the lookahead lets matches
    overlap), and for each literal the pattern reports, the rules with a literal that begins with it."""
    if group not in _DISPATCH:
        literals = {literal for rule in group.rules for literal in rule.literals}
        pattern = re.compile(f"(?=({trie_pattern(literals)}))")
        rules = {
            found: tuple(rule for rule in group.rules if any(lit.startswith(found) for lit in rule.literals))
            for found in literals
        }
        _DISPATCH[group] = pattern, rules
    return _DISPATCH[group]


_DISPATCH: dict[Group, tuple[re.Pattern[str], dict[str, tuple[Rule, ...]]]] = {}


@cache
def _token_bytes() -> bytes:
    """A byte translation: ASCII letters, digits, `_` and `-` to `a`, every other byte to a space."""
    table = bytearray(b" " * 256)
    # Spelled out, not string.ascii_letters: importing `string` compiles Template's pattern (~1.7 M instructions),
    # and every hook that redacts imports this module.
    for byte in b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-":
        table[byte] = ord("a")
    return bytes(table)


@cache
def _run_table(alphabet: str) -> bytes:
    table = bytearray(b" " * 256)
    for byte in alphabet.encode():
        table[byte] = ord("a")
    return bytes(table)


def has_run(text: str, alphabet: str, length: int) -> bool:
    """Whether `text` holds `length` characters of `alphabet` (ASCII) in a row: a translation and a search, far
    faster than a pattern scanning every position."""
    return b"a" * length in text.encode("utf-8", "surrogatepass").translate(_run_table(alphabet))


def _has_long_run(text: str) -> bool:
    """Whether `text` holds a run of 20 token characters (a translation and a search: far faster than a pattern)."""
    return b"a" * 20 in text.encode("utf-8", "surrogatepass").translate(_token_bytes())


@dataclass(frozen=True, eq=False)
class Catalogue:
    """Every group of rules, in the order they apply."""

    groups: tuple[Group, ...]

    @cached_property
    def rules(self) -> tuple[Rule, ...]:
        return tuple(rule for group in self.groups for rule in group.rules)

    @cached_property
    def _gate(self) -> re.Pattern[str]:
        """Any group's literal, in the lower-case text."""
        return re.compile(trie_pattern({literal for group in self.groups for literal in group.literals}))

    def rules_for(self, text: str, lower: str) -> list[Rule]:
        """The rules `text` could match, in the order they apply (`lower` is `text.lower()`). Ordinary text costs
        one search for every group's literals and one byte translation for a run of 20 token characters; only the
        groups that opens are looked into."""
        long_run: bool | None = None
        if self._gate.search(lower) is None:
            long_run = _has_long_run(text)
            if not long_run:
                return []
        found: list[Rule] = []
        for group in self.groups:
            if group.signs and not any(sign in text for sign in group.signs):
                continue
            if not group.opens(lower):
                if not group.long_run:
                    continue
                if long_run is None:
                    long_run = _has_long_run(text)
                if not long_run:
                    continue
            if group.dispatch:
                pattern, rules = _dispatch(group)
                present = {rule for word in set(pattern.findall(lower)) for rule in rules.get(word, ())}
                found += [rule for rule in group.rules if rule in present]
            else:
                found += group.rules
        return found
