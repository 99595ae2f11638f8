"""Recall modes beyond the reference's keyword rules: `broad`'s match plan and `hybrid`'s fusion. Pure.

- `fts` (the default) is the reference's rules exactly (memesh.core.query.plan_terms); nothing here runs.
- `broad` keeps the reference's noise guard and 32-term cap, but ORs over the query's CONTENT words only (its
  function words dropped, memesh.core.function_words) instead of trying a strict all-term match first; when that
  finds fewer memories than asked for, the words the noise guard dropped fill the remaining places.
- `hybrid` takes broad's keyword candidates (a bounded number of them) and fuses their BM25 score with a semantic
  similarity computed from stored embeddings (memesh.adapters.embedding): each signal is rescaled to 0..1 over the
  candidates, then mixed 0.7 / 0.3. The fused score is what the five-factor ranking then reads as relevance, as a
  share of the best one exactly like a BM25 score, so a memory's access counts weigh against it as they weigh
  against BM25.

What each rule is worth on the dev data, and the rules that lost, is in docs/adr/0006-recall-modes.md.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Literal

from memesh.core import function_words as fw
from memesh.core.query import MatchPlan, drop_noise
from memesh.core.terms import is_cjk_char
from memesh.records import dataclass

RecallMode = Literal["fts", "broad", "hybrid"]
MODES: tuple[RecallMode, ...] = ("fts", "broad", "hybrid")
DEFAULT_MODE: RecallMode = "fts"

# How many keyword candidates hybrid re-ranks, and the semantic share of the fused score (chosen on dev data).
HYBRID_CANDIDATES = 30
SEMANTIC_WEIGHT = 0.3
# When the keywords find fewer than `limit` memories, the newest this many are scored semantically as well, so a
# query none of whose words occur can still find its memory by meaning, at a bounded cost.
SEMANTIC_POOL = 200

Source = Literal["keyword", "semantic", "both"]


def _is_unspaced(term: str) -> bool:
    return any(is_cjk_char(ch) for ch in term)


def _unspaced_function_word(term: str) -> bool:
    if term in fw.UNSPACED_WORDS or (len(term) == 1 and term in fw.UNSPACED_CHARS):
        return True
    return len(term) == 2 and term[0] in fw.UNSPACED_CHARS and term[1] in fw.UNSPACED_CHARS


def query_language_words(terms: Sequence[str]) -> frozenset[str]:
    """The function words of the language most of these terms' function words belong to (languages tied for the
    most are all taken); empty when no term is a function word of any language."""
    counts = {lang: sum(term in words for term in terms) for lang, words in fw.SPACED.items()}
    best = max(counts.values(), default=0)
    if best == 0:
        return frozenset()
    return frozenset().union(*(fw.SPACED[lang] for lang, count in counts.items() if count == best))


def content_words(terms: Sequence[str]) -> list[str]:
    """The terms without the query's function words, in query order; all of them when nothing else would be left
    (a question made only of function words still searches for what it says)."""
    spaced = query_language_words([term for term in terms if not _is_unspaced(term)])
    kept = [term for term in terms if not (_unspaced_function_word(term) if _is_unspaced(term) else term in spaced)]
    return kept or list(terms)


@dataclass(frozen=True)
class BroadPlan:
    """`first`: OR over the content words the noise guard kept. `fill`: OR over those and the ones it dropped, for
    the places `first` leaves empty (None when the guard dropped nothing)."""

    first: MatchPlan
    fill: MatchPlan | None


def _any_of(terms: Sequence[str], dropped: Sequence[str]) -> MatchPlan:
    return MatchPlan(terms=tuple(terms), dropped=tuple(dropped), modes=("any",))


def plan_broad(terms: Sequence[str], doc_freq: Mapping[str, int], indexed_rows: int) -> BroadPlan | None:
    """Broad's plan for a query already split into its terms (`terms.query_terms`, once per query), or None when
    there are none (`???`)."""
    if not terms:
        return None
    kept, dropped = drop_noise(content_words(terms), doc_freq, indexed_rows)
    fill = _any_of([*kept, *dropped], ()) if dropped else None
    return BroadPlan(first=_any_of(kept, dropped), fill=fill)


def fill_matches(
    first: Sequence[tuple[int, float]], more: Sequence[tuple[int, float]], limit: int
) -> list[tuple[int, float]]:
    """`first`, then the matches of `more` it does not already hold, up to `limit`, each with its own BM25 score.

    The fill's score is on the same scale as the first's: the words it adds are the ones in more than half the
    memories, whose BM25 weight is close to nothing, so a memory only they match scores near zero.
    """
    seen = {entity_id for entity_id, _ in first}
    out = list(first[:limit])
    out += [match for match in more if match[0] not in seen][: max(0, limit - len(out))]
    return out


def _unit(values: Mapping[int, float]) -> dict[int, float]:
    """Each value rescaled to 0..1 over the set (all 1.0 when they are equal)."""
    if not values:
        return {}
    low, high = min(values.values()), max(values.values())
    if high <= low:
        return dict.fromkeys(values, 1.0)
    return {key: (value - low) / (high - low) for key, value in values.items()}


@dataclass(frozen=True)
class Fused:
    """One candidate after fusion: its score (higher is better, above 0) and which signals found it."""

    id: int
    score: float
    source: Source


def fuse(keyword: Sequence[tuple[int, float]], semantic: Mapping[int, float]) -> list[Fused]:
    """Keyword matches (id, BM25, best first) and semantic similarities (id → cosine) as one ranking, best first.

    A keyword match with no stored embedding (written before hybrid was on, and not reindexed) keeps its keyword
    share as its semantic share, so it is neither helped nor hurt; a memory only the semantic pool found scores 0
    on the keyword side. Ties keep the keyword order, then the semantic order.
    """
    bm25 = _unit(dict(keyword))
    similar = _unit(semantic)
    order: list[int] = [entity_id for entity_id, _ in keyword]
    order += sorted((key for key in semantic if key not in bm25), key=lambda key: -semantic[key])
    fused: list[Fused] = []
    for entity_id in order:
        kw = bm25.get(entity_id)
        sem = similar.get(entity_id)
        if kw is None:
            fused.append(Fused(entity_id, SEMANTIC_WEIGHT * (sem or 0.0), "semantic"))
        elif sem is None:
            fused.append(Fused(entity_id, kw, "keyword"))
        else:
            fused.append(Fused(entity_id, (1 - SEMANTIC_WEIGHT) * kw + SEMANTIC_WEIGHT * sem, "both"))
    ranked = sorted(range(len(fused)), key=lambda index: (-fused[index].score, index))
    # A score of 0 would make its relevance 0 and, for the best, divide by nothing: the floor keeps every one above.
    floor = 1e-6
    return [Fused(fused[i].id, max(fused[i].score, floor), fused[i].source) for i in ranked]
