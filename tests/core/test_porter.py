"""The Python Porter stemmer gives exactly the stems SQLite's FTS5 `porter` tokenizer stores."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable

from hypothesis import given, settings
from hypothesis import strategies as st

from memesh.core.porter import stem
from memesh.core.terms import segment

TOKENIZER = "porter unicode61 remove_diacritics 2"

# Every suffix the algorithm knows, on stems of each shape it distinguishes (m = 0, 1, 2; *o; double consonants).
SUFFIXES = (
    *("s", "es", "sses", "ies", "ss", "ed", "eed", "ing", "ings", "y", "e", "ly", "ll", "at", "bl", "iz"),
    *("ational", "tional", "enci", "anci", "izer", "logi", "bli", "alli", "entli", "eli", "ousli", "ization"),
    *("ation", "ator", "alism", "iveness", "fulness", "ousness", "aliti", "iviti", "biliti", "icate", "ative"),
    *("alize", "iciti", "ical", "ful", "ness", "al", "ance", "ence", "er", "ic", "able", "ible", "ant", "ement"),
    *("ment", "ent", "sion", "tion", "ion", "ou", "ism", "ate", "iti", "ous", "ive", "ize"),
)
STEMS = ("", "a", "y", "sy", "ca", "cat", "hop", "fil", "tann", "fizz", "fail", "troubl", "valen", "generaliz", "ø")
WORDS = (
    *("caresses", "ponies", "ties", "cats", "feed", "agreed", "plastered", "motoring", "sing", "conflated"),
    *("troubled", "sized", "hopping", "falling", "hissing", "filing", "happy", "sky", "relational", "conditional"),
    *("rational", "valenci", "digitizer", "conformabli", "radicalli", "differentli", "vileli", "analogousli"),
    *("vietnamization", "predication", "operator", "feudalism", "decisiveness", "hopefulness", "callousness"),
    *("formaliti", "sensitiviti", "sensibiliti", "triplicate", "formative", "formalize", "electriciti"),
    *("electrical", "hopeful", "goodness", "revival", "allowance", "inference", "airliner", "gyroscopic"),
    *("adjustable", "defensible", "irritant", "replacement", "adjustment", "dependent", "adoption", "homologou"),
    *("communism", "activate", "angulariti", "homologous", "effective", "bowdlerize", "probate", "rate", "cease"),
    *("controll", "roll", "camping", "camped", "camps", "supporting", "supported", "volunteering", "yes", "eyed"),
    *("café", "naïve", "über", "straße", "ошибками", "yyy", "aed", "ies", "sss", "xyzzy", "a" * 64, "a" * 65),
)


def sqlite_stems(tokens: Iterable[str]) -> dict[str, str]:
    """What FTS5's porter tokenizer stores for each token (one token per row)."""
    rows = list(dict.fromkeys(tokens))
    conn = sqlite3.connect(":memory:")
    try:
        conn.execute(f"CREATE VIRTUAL TABLE t USING fts5(x, tokenize = '{TOKENIZER}')")
        conn.execute("CREATE VIRTUAL TABLE v USING fts5vocab(t, 'instance')")
        conn.executemany("INSERT INTO t (rowid, x) VALUES (?, ?)", enumerate(rows, start=1))
        return {rows[doc - 1]: term for term, doc in conn.execute("SELECT term, doc FROM v")}
    finally:
        conn.close()


def folded_tokens(text: str) -> list[str]:
    """The tokens unicode61 (remove_diacritics 2) makes of `text`, the input the porter stemmer receives."""
    conn = sqlite3.connect(":memory:")
    try:
        conn.execute("CREATE VIRTUAL TABLE t USING fts5(x, tokenize = 'unicode61 remove_diacritics 2')")
        conn.execute("CREATE VIRTUAL TABLE v USING fts5vocab(t, 'instance')")
        conn.execute("INSERT INTO t (rowid, x) VALUES (1, ?)", (text,))
        return [row[0] for row in conn.execute("SELECT term FROM v")]
    finally:
        conn.close()


def test_every_suffix_rule_gives_the_stem_sqlite_gives() -> None:
    tokens = [folded for word in WORDS for folded in folded_tokens(word)]
    tokens += [base + suffix for base in STEMS for suffix in SUFFIXES]
    expected = sqlite_stems(tokens)
    assert {token: stem(token) for token in expected} == expected


def test_tokens_under_3_or_over_64_bytes_are_left_alone() -> None:
    at_limit, over_limit = "a" * 61 + "ing", "a" * 62 + "ing"
    assert stem("is") == "is"
    assert stem(at_limit) == sqlite_stems([at_limit])[at_limit] == "a" * 61
    assert stem(over_limit) == sqlite_stems([over_limit])[over_limit] == over_limit
    assert stem("é" * 33) == "é" * 33  # 66 bytes: the limit counts bytes, not characters


def test_cjk_bigrams_pass_through_unchanged() -> None:
    bigrams = segment("認証方式を決めた 한국어").split()
    assert all(stem(bigram) == bigram for bigram in bigrams)
    assert sqlite_stems(bigrams) == {bigram: bigram for bigram in bigrams}


@settings(max_examples=300, deadline=None)
@given(st.lists(st.text(alphabet="aeiouybcdglmnrstvwxz", min_size=1, max_size=14), min_size=1, max_size=20))
def test_any_lowercase_word_stems_as_sqlite_stems_it(words: list[str]) -> None:
    expected = sqlite_stems(words)
    assert {word: stem(word) for word in expected} == expected


@settings(max_examples=200, deadline=None)
@given(st.text(min_size=1, max_size=80))
def test_any_text_tokenized_by_sqlite_stems_as_sqlite_stems_it(text: str) -> None:
    tokens = folded_tokens(text.replace("\x00", ""))
    expected = sqlite_stems(tokens)
    assert {token: stem(token) for token in expected} == expected
