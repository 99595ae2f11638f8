"""The Porter stem of one token, exactly as SQLite's FTS5 `porter` tokenizer computes it.

The keyword index stores stems, so the noise guard must look a query term up by its stem. FTS5 stems the query
terms of a MATCH itself, but not a lookup in its vocabulary table; this module gives the same answer in Python.

FTS5's stemmer works on the UTF-8 bytes of a token that its base tokenizer (unicode61) already folded to lower case:
only ASCII vowels count as vowels (every other byte is a consonant), `y` is a vowel after a consonant, and tokens
shorter than 3 or longer than 64 bytes are left alone. Each step below follows the algorithm of M. F. Porter (1980)
with FTS5's readings of it: a suffix only matches when something precedes it, and the suffix lists of steps 2 to 4
are chosen by the token's next-to-last letter, so that at most one rule of each step is tried.
`tests/core/test_porter.py` compares this function with SQLite's own stemmer over many words.
"""

from __future__ import annotations

_VOWELS = frozenset(b"aeiou")
_MIN_BYTES = 3
_MAX_BYTES = 64


def _consonant_flags(word: bytes) -> list[bool]:
    """For each byte, whether it is a consonant (`y` after a consonant is a vowel; `y` first is a consonant)."""
    flags: list[bool] = []
    previous_consonant = False
    for byte in word:
        vowel = byte in _VOWELS or (byte == ord("y") and previous_consonant)
        previous_consonant = not vowel
        flags.append(previous_consonant)
    return flags


def _measure(stem: bytes) -> int:
    """Porter's m: how many vowel-then-consonant sequences the stem holds."""
    m = 0
    previous = True  # a leading consonant run is not counted
    for consonant in _consonant_flags(stem):
        if consonant and not previous:
            m += 1
        previous = consonant
    return m


def _has_vowel(stem: bytes) -> bool:
    # FTS5 counts `y` as a vowel anywhere but in first place here.
    return any(byte in _VOWELS or (byte == ord("y") and i > 0) for i, byte in enumerate(stem))


def _cvc(stem: bytes) -> bool:
    """Porter's *o: the stem ends consonant-vowel-consonant, the last not w, x or y."""
    if not stem or stem[-1] in b"wxy":
        return False
    flags = _consonant_flags(stem)
    return len(flags) >= 3 and flags[-3:] == [True, False, True]


def _m_gt0(stem: bytes) -> bool:
    return _measure(stem) > 0


def _m_gt1(stem: bytes) -> bool:
    return _measure(stem) > 1


def _m_gt1_s_or_t(stem: bytes) -> bool:
    return bool(stem) and stem[-1] in b"st" and _measure(stem) > 1


# Steps 2, 3 and 4: (suffix, replacement, condition on the stem), grouped by the suffix's next-to-last letter.
_Rule = tuple[bytes, bytes, str]
_STEP2: dict[int, tuple[_Rule, ...]] = {
    ord("a"): ((b"ational", b"ate", "m>0"), (b"tional", b"tion", "m>0")),
    ord("c"): ((b"enci", b"ence", "m>0"), (b"anci", b"ance", "m>0")),
    ord("e"): ((b"izer", b"ize", "m>0"),),
    ord("g"): ((b"logi", b"log", "m>0"),),
    ord("l"): (
        (b"bli", b"ble", "m>0"),
        (b"alli", b"al", "m>0"),
        (b"entli", b"ent", "m>0"),
        (b"eli", b"e", "m>0"),
        (b"ousli", b"ous", "m>0"),
    ),
    ord("o"): ((b"ization", b"ize", "m>0"), (b"ation", b"ate", "m>0"), (b"ator", b"ate", "m>0")),
    ord("s"): (
        (b"alism", b"al", "m>0"),
        (b"iveness", b"ive", "m>0"),
        (b"fulness", b"ful", "m>0"),
        (b"ousness", b"ous", "m>0"),
    ),
    ord("t"): ((b"aliti", b"al", "m>0"), (b"iviti", b"ive", "m>0"), (b"biliti", b"ble", "m>0")),
}
_STEP3: dict[int, tuple[_Rule, ...]] = {
    ord("a"): ((b"ical", b"ic", "m>0"),),
    ord("s"): ((b"ness", b"", "m>0"),),
    ord("t"): ((b"icate", b"ic", "m>0"), (b"iciti", b"ic", "m>0")),
    ord("u"): ((b"ful", b"", "m>0"),),
    ord("v"): ((b"ative", b"", "m>0"),),
    ord("z"): ((b"alize", b"al", "m>0"),),
}
_STEP4: dict[int, tuple[_Rule, ...]] = {
    ord("a"): ((b"al", b"", "m>1"),),
    ord("c"): ((b"ance", b"", "m>1"), (b"ence", b"", "m>1")),
    ord("e"): ((b"er", b"", "m>1"),),
    ord("i"): ((b"ic", b"", "m>1"),),
    ord("l"): ((b"able", b"", "m>1"), (b"ible", b"", "m>1")),
    ord("n"): ((b"ant", b"", "m>1"), (b"ement", b"", "m>1"), (b"ment", b"", "m>1"), (b"ent", b"", "m>1")),
    ord("o"): ((b"ion", b"", "m>1 and (*s or *t)"), (b"ou", b"", "m>1")),
    ord("s"): ((b"ism", b"", "m>1"),),
    ord("t"): ((b"ate", b"", "m>1"), (b"iti", b"", "m>1")),
    ord("u"): ((b"ous", b"", "m>1"),),
    ord("v"): ((b"ive", b"", "m>1"),),
    ord("z"): ((b"ize", b"", "m>1"),),
}
_CONDITIONS = {"m>0": _m_gt0, "m>1": _m_gt1, "m>1 and (*s or *t)": _m_gt1_s_or_t}


def _apply(word: bytes, table: dict[int, tuple[_Rule, ...]]) -> bytes:
    """The first rule whose suffix ends the word (with something before it) decides; its condition may refuse."""
    for suffix, replacement, condition in table.get(word[-2], ()) if len(word) >= 2 else ():
        if len(word) > len(suffix) and word.endswith(suffix):
            stem = word[: -len(suffix)]
            return stem + replacement if _CONDITIONS[condition](stem) else word
    return word


def _step1a(word: bytes) -> bytes:
    if not word.endswith(b"s"):
        return word
    if word.endswith(b"es"):
        if (len(word) > 4 and word.endswith(b"sses")) or (len(word) > 3 and word.endswith(b"ies")):
            return word[:-2]
        return word[:-1]
    return word if word.endswith(b"ss") else word[:-1]


def _step1b(word: bytes) -> bytes:
    if len(word) > 3 and word.endswith(b"eed"):
        return word[:-1] if _m_gt0(word[:-3]) else word
    for suffix in (b"ed", b"ing"):
        if len(word) > len(suffix) and word.endswith(suffix):
            stem = word[: -len(suffix)]
            return _step1b_tidy(stem) if _has_vowel(stem) else word
    return word


def _step1b_tidy(stem: bytes) -> bytes:
    """After removing -ed or -ing: restore an e, or undouble a final consonant."""
    for ending in (b"at", b"bl", b"iz"):
        if len(stem) > 2 and stem.endswith(ending):
            return stem + b"e"
    last = stem[-1]
    if len(stem) >= 2 and last not in _VOWELS and last not in b"lsz" and last == stem[-2]:
        return stem[:-1]
    if _measure(stem) == 1 and _cvc(stem):
        return stem + b"e"
    return stem


def _step1c(word: bytes) -> bytes:
    if word.endswith(b"y") and _has_vowel(word[:-1]):
        return word[:-1] + b"i"
    return word


def _step5(word: bytes) -> bytes:
    if word.endswith(b"e"):
        stem = word[:-1]
        m = _measure(stem)
        if m > 1 or (m == 1 and not _cvc(stem)):
            word = stem
    if len(word) > 1 and word.endswith(b"ll") and _m_gt1(word[:-1]):
        word = word[:-1]
    return word


def stem(token: str) -> str:
    """The form FTS5's porter tokenizer stores `token` in (a token already folded by unicode61)."""
    word = token.encode("utf-8")
    if not _MIN_BYTES <= len(word) <= _MAX_BYTES:
        return token
    word = _step1a(word)
    word = _step1b(word)
    word = _step1c(word)
    word = _apply(word, _STEP2)
    word = _apply(word, _STEP3)
    word = _apply(word, _STEP4)
    word = _step5(word)
    return word.decode("utf-8")
