"""The five-factor recall score: relevance 0.30, recency 0.25, frequency 0.18, confidence 0.17, impact 0.10."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime

from memesh.records import dataclass

WEIGHTS = {"relevance": 0.30, "recency": 0.25, "frequency": 0.18, "confidence": 0.17, "impact": 0.10}
RECENCY_SCALE_DAYS = 30.0
NEUTRAL = 0.5
# A memory recalled this many times counts as fully frequent; below it, frequency grows with the log of the count.
FREQUENT_RECALLS = 100
# Frequency's weight when `hybrid` ranks a query's matches (issue 38); fts, broad and every listing keep 0.18. Each
# recall counts an access for every memory it returned, so a memory that earlier queries returned gains on one that
# fits this query better; against hybrid's fused relevance, the full weight let that popularity push better-fitting
# memories out of the top 5 (docs/adr/0006-recall-modes.md, "Sixth round").
HYBRID_FREQUENCY_WEIGHT = 0.03


@dataclass(frozen=True)
class Signals:
    """What the score reads from one stored memory."""

    id: int
    last_accessed_at: str | None
    access_count: int
    confidence: float
    recall_hits: int = 0
    recall_misses: int = 0


def parse_time(value: str | None) -> datetime | None:
    """An ISO-8601 or SQLite `YYYY-MM-DD HH:MM:SS` timestamp as an aware UTC datetime; None when unreadable."""
    if not value:
        return None
    try:
        parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


def recency(last_accessed_at: str | None, now: datetime) -> float:
    """exp(-days/30) since the memory was last recalled; neutral when it never was."""
    when = parse_time(last_accessed_at)
    if when is None:
        return NEUTRAL
    days = max(0.0, (now - when).total_seconds() / 86400)
    return math.exp(-days / RECENCY_SCALE_DAYS)


def frequency(access_count: int) -> float:
    """Access count on a log scale, 1.0 from FREQUENT_RECALLS recalls on.

    The scale is fixed rather than relative to the most-recalled candidate: measured against the other candidates,
    a single earlier recall was worth the whole frequency weight whenever no other candidate had more, enough to lift
    a memory over one that matched the query twice as well. A fixed scale gives one recall a small step
    (0.15 of the factor) and keeps a memory's frequency the same whatever else the query matched.
    """
    return min(1.0, math.log(access_count + 1) / math.log(FREQUENT_RECALLS + 1))


def impact(hits: int, misses: int) -> float:
    """Laplace-smoothed share of recalls that were used: 0.5 for a memory with no record yet."""
    return (hits + 1) / (hits + misses + 2)


def relevance(matches: Sequence[tuple[int, float]]) -> dict[int, float]:
    """Each match's BM25 score as a share of the best match's: the best 1.0, the others in proportion.

    Relevance used to come from the BM25 position alone (1.0 falling evenly to the last), which made the second
    of two near-equal matches as far behind as a poor one, and let access counts reorder strong matches
    freely. A share of the best score keeps how much better one match is than another.
    """
    best = max((score for _, score in matches), default=0.0)
    return {entity_id: score / best if best > 0 else 1.0 for entity_id, score in matches}


def score(signal: Signals, relevance: float, now: datetime, frequency_weight: float = WEIGHTS["frequency"]) -> float:
    return (
        WEIGHTS["relevance"] * relevance
        + WEIGHTS["recency"] * recency(signal.last_accessed_at, now)
        + frequency_weight * frequency(signal.access_count)
        + WEIGHTS["confidence"] * signal.confidence
        + WEIGHTS["impact"] * impact(signal.recall_hits, signal.recall_misses)
    )


def rank(
    signals: Sequence[Signals],
    relevance: Mapping[int, float],
    now: datetime,
    *,
    frequency_weight: float = WEIGHTS["frequency"],
) -> list[int]:
    """Candidate ids by descending score; equal scores keep the order they came in (BM25, then recency).
    `frequency_weight` replaces frequency's 0.18 (hybrid's matches: HYBRID_FREQUENCY_WEIGHT)."""
    scored = [(score(s, relevance.get(s.id, NEUTRAL), now, frequency_weight), i, s.id) for i, s in enumerate(signals)]
    scored.sort(key=lambda item: (-item[0], item[1]))
    return [entity_id for _, _, entity_id in scored]
