"""Turn a recall query into a match plan: pure, so every rule is tested with plain values.

The rules are the spec's:
- punctuation splits words; CJK runs become bigrams (see `terms`); a lone CJK character matches as a prefix;
- terms in more than half the indexed rows are dropped as noise, except that a query made only of such terms keeps
  its rarest one, and the guard is off below 25 rows (where a frequent word is the subject, not a stopword);
- of what survives, the first 32 in query order are used;
- one or two terms are OR-ed; three or more are tried as a strict all-term match first, with OR as the fallback.

The plan is the terms and the order of the modes to try, not an engine's query text: each store turns it into its
own (the SQLite store into FTS5 expressions with every term quoted, so no user text can form FTS5 syntax).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Literal

from memesh.core.terms import is_cjk_char, query_terms
from memesh.records import dataclass

MAX_QUERY_TERMS = 32
MIN_ROWS_FOR_NOISE_GUARD = 25
NOISE_FRACTION = 0.5
STRICT_MIN_TERMS = 3


Mode = Literal["all", "any"]  # every term must occur / any term may occur


@dataclass(frozen=True)
class MatchPlan:
    """What a query becomes: the terms kept, the ones dropped as noise, and the modes to try in order (the first
    that matches anything is the answer)."""

    terms: tuple[str, ...]
    dropped: tuple[str, ...]
    modes: tuple[Mode, ...]

    @property
    def strict(self) -> bool:
        """Whether an all-term match is tried first."""
        return self.modes[0] == "all"


def is_prefix(term: str) -> bool:
    """A lone CJK character matches every indexed token it begins (the bigrams it is part of), not only itself."""
    return len(term) == 1 and is_cjk_char(term)


def guards(terms: Sequence[str]) -> bool:
    """Whether the noise guard looks at these terms at all (their frequencies and the memory count): not for one."""
    return len(terms) >= 2


def drop_noise(terms: Sequence[str], doc_freq: Mapping[str, int], indexed_rows: int) -> tuple[list[str], list[str]]:
    """Split terms into (kept, dropped): a term is noise when it appears in more than half the indexed rows.

    At most the first 32 survivors are kept, and the terms after the 32nd survivor are neither kept nor dropped: they
    are never looked at, so a pasted page of text costs the frequencies of its first few dozen words, not all of them.
    """
    if not guards(terms) or indexed_rows < MIN_ROWS_FOR_NOISE_GUARD:
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
    modes: tuple[Mode, ...] = ("all", "any") if len(kept) >= STRICT_MIN_TERMS else ("any",)
    return MatchPlan(terms=tuple(kept), dropped=tuple(dropped), modes=modes)


def plan_match(query: str, doc_freq: Mapping[str, int], indexed_rows: int) -> MatchPlan | None:
    """The match plan for the text of `query`, or None when it holds nothing searchable (`???`)."""
    return plan_terms(query_terms(query), doc_freq, indexed_rows)
