"""Turn a recall query into FTS5 match expressions: pure, so every rule is tested with plain values.

The rules are the spec's:
- punctuation splits words; CJK runs become bigrams (see `terms`); a lone CJK character matches as a prefix;
- terms in more than half the indexed rows are dropped as noise, except that a query made only of such terms keeps
  its rarest one, and the guard is off below 25 rows (where a frequent word is the subject, not a stopword);
- of what survives, the first 32 in query order are used;
- one or two terms are OR-ed; three or more are tried as a strict all-term match first, with OR as the fallback;
- every term is quoted, so no user text can form FTS5 syntax.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from memesh.core.terms import is_cjk_char, query_terms

MAX_QUERY_TERMS = 32
MIN_ROWS_FOR_NOISE_GUARD = 25
NOISE_FRACTION = 0.5
STRICT_MIN_TERMS = 3


@dataclass(frozen=True)
class MatchPlan:
    """What a query becomes: the terms kept, the ones dropped as noise, and the expressions to run in order."""

    terms: tuple[str, ...]
    dropped: tuple[str, ...]
    strict: str | None
    broad: str

    @property
    def expressions(self) -> tuple[str, ...]:
        return (self.strict, self.broad) if self.strict else (self.broad,)


def quote(term: str) -> str:
    """One FTS5 string token: the term in double quotes with inner quotes doubled, NUL removed."""
    body = term.replace("\x00", "").replace('"', '""')
    return f'"{body}"*' if len(body) == 1 and is_cjk_char(body) else f'"{body}"'


def drop_noise(terms: Sequence[str], doc_freq: Mapping[str, int], indexed_rows: int) -> tuple[list[str], list[str]]:
    """Split terms into (kept, dropped): a term is noise when it appears in more than half the indexed rows.

    At most the first 32 survivors are kept, and the terms after the 32nd survivor are neither kept nor dropped: they
    are never looked at, so a pasted page of text costs the frequencies of its first few dozen words, not all of them.
    """
    if indexed_rows < MIN_ROWS_FOR_NOISE_GUARD or len(terms) < 2:
        return list(terms[:MAX_QUERY_TERMS]), []
    ceiling = NOISE_FRACTION * indexed_rows
    kept: list[str] = []
    dropped: list[str] = []
    for term in terms:
        if len(kept) == MAX_QUERY_TERMS:
            break
        (kept if doc_freq.get(term, 0) <= ceiling else dropped).append(term)
    if not kept:
        rarest = min(terms, key=lambda term: doc_freq.get(term, 0))  # min keeps the first of equals
        return [rarest], [term for term in terms if term != rarest]
    return kept, dropped


def plan_terms(terms: Sequence[str], doc_freq: Mapping[str, int], indexed_rows: int) -> MatchPlan | None:
    """The match plan for a query already split into its terms (`terms.query_terms`, once per query), or None when
    there are none (`???`)."""
    if not terms:
        return None
    kept, dropped = drop_noise(terms, doc_freq, indexed_rows)
    quoted = [quote(term) for term in kept]
    strict = " AND ".join(quoted) if len(kept) >= STRICT_MIN_TERMS else None
    return MatchPlan(terms=tuple(kept), dropped=tuple(dropped), strict=strict, broad=" OR ".join(quoted))


def plan_match(query: str, doc_freq: Mapping[str, int], indexed_rows: int) -> MatchPlan | None:
    """The match plan for the text of `query`, or None when it holds nothing searchable (`???`)."""
    return plan_terms(query_terms(query), doc_freq, indexed_rows)
