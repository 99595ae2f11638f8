"""Recall modes beyond the reference's keyword rules: `broad`'s match plan and `hybrid`'s fusion. Pure.

- `fts` (the default) is the reference's rules exactly (memesh.core.query.plan_terms); nothing here runs.
- `broad` keeps the reference's noise guard and 32-term cap, but ORs over the query's CONTENT words only (its
  function words dropped, memesh.core.function_words) instead of trying a strict all-term match first; when that
  finds fewer memories than asked for, the words the noise guard dropped fill the remaining places. Its best
  keyword candidates (a bounded number) are then re-ranked with a passage signal: how much of the query (its
  content words weighted by rarity, BM25's IDF) the best two consecutive observations of a memory hold, since a
  question usually asks about one exchange, not about the whole memory; a word weighs its rarity among the memories
  plus its rarity among the candidates' observations (a word said in every turn points at none). Each signal is
  rescaled to 0..1 over the candidates, then mixed 0.7 keyword / 0.3 passage.
- `hybrid` takes the same keyword candidates and fuses their BM25 score and passage score with a semantic
  similarity computed from stored embeddings (memesh.adapters.embedding): each rescaled to 0..1 over the
  candidates, then mixed 0.55 keyword / 0.15 passage / 0.3 semantic. The fused score is what the five-factor
  ranking then reads as relevance, as a share of the best one exactly like a BM25 score; that ranking weighs
  access frequency 0.03 in hybrid, not 0.18 (memesh.core.scoring.HYBRID_FREQUENCY_WEIGHT), so what earlier recalls
  returned does not outrank what fits the query better.

What each rule is worth on the dev data, and the rules that lost, is in docs/adr/0006-recall-modes.md.
"""

from __future__ import annotations

import bisect
import datetime as dt
import functools
import itertools
import math
import re
import unicodedata
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import field
from typing import Literal

from memesh.core import function_words as fw
from memesh.core.porter import stem
from memesh.core.query import MatchPlan, drop_noise
from memesh.core.terms import fold, is_cjk_char
from memesh.records import dataclass

RecallMode = Literal["fts", "broad", "hybrid"]
MODES: tuple[RecallMode, ...] = ("fts", "broad", "hybrid")
DEFAULT_MODE: RecallMode = "fts"

# How many keyword candidates broad and hybrid re-rank, and the shares of the fused score (chosen on dev data).
RERANK_CANDIDATES = 30
SEMANTIC_WEIGHT = 0.3
BROAD_PASSAGE_WEIGHT = 0.3
HYBRID_PASSAGE_WEIGHT = 0.15
# A passage is this many consecutive observations: a question and its answer are often two turns.
PASSAGE_OBSERVATIONS = 2
# A word's weight in the passage signal is its rarity among the memories (the store's IDF) plus this share of its
# rarity among the observations of the candidates read (the same IDF over those observations): a passage is a turn or
# two, and a word in every turn of one long memory is rare among memories but says little about which turn answers.
TURN_RARITY_WEIGHT = 1.0
# When the keywords find fewer than `limit` memories, the newest this many are scored semantically as well, so a
# query none of whose words occur can still find its memory by meaning, at a bounded cost.
SEMANTIC_POOL = 200
# Issue 38: a memory dated in the time a question names (its `date:` tag, else its created_at) gains this much of
# the fused score (each signal is rescaled to 0..1, so the best candidate scores about 1) before the cut. Chosen on
# the dev halves from the middle of a plateau (0.3–0.7; ADR 0006).
TIME_BONUS = 0.5
# Which expressions' words stop counting as search words: a relative one's ("10 days ago", "last week") are about
# the asker's clock and never what a memory says; an absolute date's words may be written in the memory itself
# ("on 8 May, 2023" in a title or a line), so they are still searched for (measured: ADR 0006, issue 38).
TIME_WORDS_DROPPED: frozenset[str] = frozenset({"relative", "ago"})

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
class Passage:
    """What the passage signal looks for: each content word's stem (the form the index holds) with its weight, the
    rarity of the word in the store (BM25's IDF). A word of a text holds a stem when it starts with the stem's
    search prefix (the stem, less a final `i` that porter made of a `y`) and stems to it; CJK bigrams (and single
    characters) are looked for as they are."""

    weights: Mapping[str, float] = field(default_factory=dict)
    prefixes: tuple[str, ...] = ()
    unspaced: tuple[str, ...] = ()


def idf(doc_freq: int, indexed_rows: int) -> float:
    """BM25's inverse document frequency, always above 0."""
    return math.log((indexed_rows - doc_freq + 0.5) / (doc_freq + 0.5) + 1)


def _prefix(key: str) -> str:
    return key[:-1] if len(key) > 3 and key.endswith("i") else key


def passage_of(terms: Sequence[str], doc_freq: Mapping[str, int], indexed_rows: int) -> Passage:
    """The passage signal of a query's kept content words (one word needs no frequency: its weight is its own)."""
    weights: dict[str, float] = {}
    for term in terms:
        key = term if _is_unspaced(term) else stem(term)
        weight = 1.0 if len(terms) == 1 else idf(doc_freq.get(term, 0), max(indexed_rows, 1))
        weights[key] = max(weights.get(key, 0.0), weight)
    spaced = tuple(sorted({_prefix(key) for key in weights if not _is_unspaced(key)}))
    return Passage(weights, spaced, tuple(key for key in weights if _is_unspaced(key)))


@functools.lru_cache(maxsize=65_536)
def _stem(word: str) -> str:
    return stem(word)


_SEPARATOR = "\x1f"  # between observations in the one text a passage search scans (stored text holds none)
_REST_OF_WORD = re.compile(r"[^\W_]*")


def _folded(text: str) -> str:
    """`text` folded as the index folds it; lower case alone when it has no letter that a mark could be taken off
    (most text: ASCII, or punctuation and emoji beside it), which is the costly part on a long text."""
    if text.isascii() or unicodedata.is_normalized("NFD", text):
        return text.lower()
    return fold(text)


def _held(observations: Sequence[str], passage: Passage) -> dict[int, set[str]]:
    """Which of the query's stems (and CJK terms) each observation holds, by observation index (those holding none
    left out). The observations are scanned as one text, each prefix by `str.find`, so a long memory costs a few
    passes in C, not a pass per observation in Python."""
    pieces = [_folded(observation) for observation in observations]
    text = _SEPARATOR.join(pieces)
    starts = list(itertools.accumulate((len(piece) + 1 for piece in pieces[:-1]), initial=0))
    held: dict[int, set[str]] = {}
    for prefix in passage.prefixes:
        at = text.find(prefix)
        while at >= 0:
            if at == 0 or not text[at - 1].isalnum():
                word = _REST_OF_WORD.match(text, at)
                key = _stem(word.group()) if word else ""
                if key in passage.weights:
                    held.setdefault(bisect.bisect_right(starts, at) - 1, set()).add(key)
            at = text.find(prefix, at + 1)
    for term in passage.unspaced:
        at = text.find(term)
        while at >= 0:
            held.setdefault(bisect.bisect_right(starts, at) - 1, set()).add(term)
            at = text.find(term, at + 1)
    return held


def _best_window(held: Mapping[int, set[str]], weights: Mapping[str, float], size: int) -> float:
    best = 0.0
    for start in {first for index in held for first in range(max(0, index - size + 1), index + 1)}:
        window = set().union(*(held.get(index, ()) for index in range(start, start + size)))
        best = max(best, sum(weights[key] for key in window))
    return best


def passage_score(observations: Sequence[str], passage: Passage, size: int = PASSAGE_OBSERVATIONS) -> float:
    """The weight of the query's content words held by the best `size` consecutive observations (0 for none), each
    word weighed by the passage's own weights."""
    if not observations:
        return 0.0
    return _best_window(_held(observations, passage), passage.weights, size)


def passage_scores(
    texts: Mapping[int, Sequence[str]], passage: Passage, size: int = PASSAGE_OBSERVATIONS
) -> dict[int, float]:
    """The passage score of each candidate (id → its observations), each word weighed by its rarity among the
    memories (the passage's weight) plus TURN_RARITY_WEIGHT × its rarity among all these candidates' observations.

    A word said in many of the candidates' turns tells little about which turn answers, even when few memories hold
    it; one the candidates say once or twice points at the turn. The count is taken over the text already read for
    the signal, so it costs no store access. With one query word every window that holds it still scores the same.
    """
    held = {entity_id: _held(observations, passage) for entity_id, observations in texts.items()}
    read = max(1, sum(len(observations) for observations in texts.values()))
    turns = Counter(key for found in held.values() for keys in found.values() for key in keys)
    weights = {key: weight + TURN_RARITY_WEIGHT * idf(turns[key], read) for key, weight in passage.weights.items()}
    return {entity_id: _best_window(found, weights, size) for entity_id, found in held.items()}


@dataclass(frozen=True)
class BroadPlan:
    """`first`: OR over the content words the noise guard kept. `fill`: OR over those and the ones it dropped, for
    the places `first` leaves empty (None when the guard dropped nothing). `passage`: the kept words' passage
    signal."""

    first: MatchPlan
    fill: MatchPlan | None
    passage: Passage = field(default_factory=Passage)


def _any_of(terms: Sequence[str], dropped: Sequence[str]) -> MatchPlan:
    return MatchPlan(terms=tuple(terms), dropped=tuple(dropped), modes=("any",))


def plan_broad(terms: Sequence[str], doc_freq: Mapping[str, int], indexed_rows: int) -> BroadPlan | None:
    """Broad's plan for a query already split into its terms (`terms.query_terms`, once per query), or None when
    there are none (`???`)."""
    if not terms:
        return None
    kept, dropped = drop_noise(content_words(terms), doc_freq, indexed_rows)
    fill = _any_of([*kept, *dropped], ()) if dropped else None
    return BroadPlan(first=_any_of(kept, dropped), fill=fill, passage=passage_of(kept, doc_freq, indexed_rows))


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


def fuse(
    keyword: Sequence[tuple[int, float]],
    semantic: Mapping[int, float],
    passage: Mapping[int, float] | None = None,
    *,
    semantic_weight: float = SEMANTIC_WEIGHT,
    passage_weight: float = 0.0,
) -> list[Fused]:
    """Keyword matches (id, BM25, best first), semantic similarities (id → cosine) and passage scores (id → score,
    for keyword matches) as one ranking, best first: each signal rescaled to 0..1 over the candidates, then
    `(1 − semantic − passage) × keyword + semantic_weight × semantic + passage_weight × passage`.

    A keyword match with no stored embedding (written before hybrid was on, and not reindexed, or broad, which has
    none) keeps its keyword share as its semantic share, so it is neither helped nor hurt; a memory only the
    semantic pool found scores 0 on the keyword and passage sides. Ties keep the keyword order, then the semantic
    order.
    """
    bm25 = _unit(dict(keyword))
    similar = _unit(semantic)
    held = _unit(passage or {})
    order: list[int] = [entity_id for entity_id, _ in keyword]
    order += sorted((key for key in semantic if key not in bm25), key=lambda key: -semantic[key])
    keyword_weight = 1 - semantic_weight - passage_weight
    fused: list[Fused] = []
    for entity_id in order:
        kw = bm25.get(entity_id)
        sem = similar.get(entity_id)
        if kw is None:
            fused.append(Fused(entity_id, semantic_weight * (sem or 0.0), "semantic"))
            continue
        score = keyword_weight * kw + semantic_weight * (kw if sem is None else sem)
        score += passage_weight * held.get(entity_id, 0.0)
        fused.append(Fused(entity_id, score, "keyword" if sem is None else "both"))
    ranked = sorted(range(len(fused)), key=lambda index: (-fused[index].score, index))
    # A score of 0 would make its relevance 0 and, for the best, divide by nothing: the floor keeps every one above.
    floor = 1e-6
    return [Fused(fused[i].id, max(fused[i].score, floor), fused[i].source) for i in ranked]


def time_bonus(
    fused: Sequence[Fused], dates: Mapping[int, str], window: tuple[dt.date, dt.date], bonus: float | None = None
) -> list[Fused]:
    """The candidates re-ranked with `bonus` (TIME_BONUS when None) added to each one dated (`YYYY-MM-DD`) in
    `window` [start, end); equal scores keep their order. A memory whose date cannot be read gets nothing."""
    bonus = TIME_BONUS if bonus is None else bonus
    low, high = window
    out: list[Fused] = []
    for item in fused:
        try:
            day = dt.date.fromisoformat(dates.get(item.id, "")[:10])
        except ValueError:
            day = None
        inside = day is not None and low <= day < high
        out.append(Fused(item.id, item.score + bonus, item.source) if inside else item)
    order = sorted(range(len(out)), key=lambda index: (-out[index].score, index))
    return [out[index] for index in order]
