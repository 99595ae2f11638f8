"""How text becomes search terms, shared by the index writer and the query builder so the two always agree.

The keyword index uses SQLite's `unicode61` tokenizer (case-folded, diacritics removed, punctuation splits words).
That tokenizer treats a run of Chinese, Japanese or Korean characters as one long token, so a question in those
scripts could only ever match a memory containing the identical run. Both sides therefore rewrite each such run as
its overlapping character bigrams (`認証方式` → `認証 証方 方式`) before the tokenizer sees it.
"""

from __future__ import annotations

import unicodedata

from memesh.core.lazy_pattern import LazyPattern

# Han (with extensions and compatibility ideographs), kana (with half-width forms) and Hangul.
_CJK_CLASS = (
    "\u2e80-\u2fdf\u3005\u3007\u3021-\u3029\u3038-\u303b"
    "\u3040-\u30ff\u31f0-\u31ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff66-\uff9f"
    "\u1100-\u11ff\u3130-\u318f\ua960-\ua97f\uac00-\ud7af\ud7b0-\ud7ff"
    "\U00020000-\U0003134f"
)
# Compiled when first needed (~1 ms: the class spans ranges past U+FFFF), never for ASCII text, which has no CJK run:
# most recalls, and every English memory, never need it (memesh.core.lazy_pattern).
_CJK_RUN = LazyPattern(f"[{_CJK_CLASS}]+")
# A word is a run of letters and digits; `_` and every other punctuation mark splits, as in unicode61.
_WORD = LazyPattern(r"[^\W_]+")


def _bigrams(run: str) -> list[str]:
    if len(run) == 1:
        return [run]
    return [run[i : i + 2] for i in range(len(run) - 1)]


def segment(text: str) -> str:
    """`text` with every CJK run replaced by its space-separated bigrams; everything else unchanged."""
    if text.isascii() or not _CJK_RUN.search(text):
        return text
    return _CJK_RUN.sub(lambda m: " " + " ".join(_bigrams(m.group())) + " ", text)


def fold(term: str) -> str:
    """The form unicode61 (remove_diacritics 2) stores a token in: lower case, combining marks removed."""
    if term.isascii():  # no marks to remove and nothing to compose: most query words
        return term.lower()
    decomposed = unicodedata.normalize("NFD", term.lower())
    return unicodedata.normalize("NFC", "".join(ch for ch in decomposed if not unicodedata.combining(ch)))


def query_terms(query: str) -> list[str]:
    """The distinct searchable terms of a query, folded, in the order they first appear: one pass over the query,
    whose terms every later step of a recall reads (the frequencies, the plan)."""
    seen: dict[str, None] = {}
    cjk = not query.isascii() and _CJK_RUN.search(query) is not None  # else no word needs its runs rewritten
    for word in _WORD.findall(query):
        for piece in segment(word).split() if cjk else (word,):
            seen.setdefault(fold(piece), None)
    return list(seen)


def is_cjk_char(ch: str) -> bool:
    """True for one character of a script written without spaces between words."""
    return not ch.isascii() and _CJK_RUN.fullmatch(ch) is not None
