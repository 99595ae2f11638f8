"""recall: find memories by keyword (or list recent ones), ranked by the five-factor score."""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Literal, Protocol

from returns.result import Failure, Result, Success

from memesh.context import CallContext
from memesh.core import access, scoring, sizecap
from memesh.core import query as fts
from memesh.core.history import summarize
from memesh.core.terms import query_terms
from memesh.errors import ErrorCode, MemeshError
from memesh.model import Entity, Filters, iso_time
from memesh.ops.seen import seen_relations
from memesh.schema import facts

DEFAULT_LIMIT: int = facts.default("tools/recall.input", "limit")
PROJECT_TAG_PREFIX = "project:"


class RecallStore(Protocol):
    def count(self) -> int: ...
    def existing_names(self, names: Iterable[str], people: Filters | None = None) -> set[str]: ...
    def doc_freq(self, terms: Sequence[str]) -> dict[str, int]: ...
    def search_stats(self, terms: Sequence[str]) -> tuple[int, dict[str, int] | None]: ...
    def search(self, plan: fts.MatchPlan, filters: Filters, limit: int) -> list[tuple[int, float]]: ...
    def search_rows(self, plan: fts.MatchPlan, filters: Filters, limit: int) -> list[tuple[Entity, float]]: ...
    def recent(self, filters: Filters, limit: int) -> list[int]: ...
    def recent_rows(self, filters: Filters, limit: int) -> list[Entity]: ...
    def load(self, ids: Sequence[int]) -> list[Entity]: ...
    def touch(self, ids: Sequence[int], when: str) -> None: ...
    def conflicts(self, names: Sequence[str]) -> list[tuple[str, str]]: ...
    def record_session_memories(self, session_id: str, ids: Sequence[int], source: str, when: str) -> None: ...
    def database_failure(self, exc: BaseException) -> MemeshError | None: ...
    def vectors(self, ids: Sequence[int], model: str) -> dict[int, bytes]: ...
    def observation_texts(self, ids: Sequence[int]) -> dict[int, list[str]]: ...
    def memory_dates(self, ids: Sequence[int]) -> dict[int, str]: ...


if TYPE_CHECKING:
    from datetime import datetime

    from memesh.core.recall_modes import Source
    from memesh.core.time_expressions import Expression
    from memesh.generated.tools.recall_input import RecallInput
    from memesh.generated.tools.recall_output import Entity as RecallEntity
    from memesh.generated.tools.recall_output import RecallOutput, TimeWindow
    from memesh.ops.recall_search import SemanticSignal


class RecallUses(Protocol):
    """What recall uses: the store, the recall mode in effect (memesh.core.recall_modes) and, in hybrid, the
    semantic signal (None in any other mode, and when the semantic extra is missing, which answers as broad)."""

    @property
    def store(self) -> RecallStore: ...
    @property
    def mode(self) -> str: ...
    @property
    def semantic(self) -> SemanticSignal | None: ...


class LazyDocFreq(Mapping[str, int]):
    """The store's document frequencies for `terms`, asked for only when the match plan reads one, a chunk at a time.

    The noise guard reads them only for queries of two or more terms on a database of 25 or more memories, and
    counting a frequent term's documents walks its whole posting list, which a one-term query never needs. It reads
    them in query order and stops at the 32nd survivor, so a long pasted query is counted a chunk of terms at a time.
    """

    CHUNK = 48

    def __init__(self, store: RecallStore, terms: Sequence[str], first: Mapping[str, int] | None = None) -> None:
        """`first`: the store's frequencies of the first chunk of terms, when it read them already."""
        self._store = store
        self._terms = list(terms)
        self._position = {term: index for index, term in enumerate(self._terms)}
        self._freq: dict[str, int] = {}
        if first is not None:
            self._freq.update({each: first.get(each, 0) for each in self._terms[: self.CHUNK]})

    def __getitem__(self, term: str) -> int:
        if term not in self._freq:
            start = self._position[term]  # KeyError for a term that is not the query's, as a Mapping should
            chunk = self._terms[start : start + self.CHUNK]
            found = self._store.doc_freq(chunk)
            self._freq.update({each: found.get(each, 0) for each in chunk})  # 0: in no memory (yet)
        return self._freq[term]

    def __iter__(self) -> Iterator[str]:
        return iter(self._terms)

    def __len__(self) -> int:
        return len(self._terms)


def filters_for(request: RecallInput) -> Filters:
    """`cross_project` lifts a `project:` tag filter and the namespace filter; any other tag still filters."""
    # Tags are stored in NFC: a filter typed in NFD finds them.
    tag = unicodedata.normalize("NFC", request.get("tag") or "") or None
    author = request.get("author")
    if request.get("cross_project"):
        kept = None if tag is None or tag.startswith(PROJECT_TAG_PREFIX) else tag
        return Filters(tag=kept, include_archived=request.get("include_archived", False), author=author)
    return Filters(
        tag=tag,
        namespace=request.get("namespace"),
        include_archived=request.get("include_archived", False),
        author=author,
    )


def _fold(text: str) -> str:
    return unicodedata.normalize("NFC", text).strip().casefold()


def exact_matches_first(entities: list[Entity], query: str) -> list[Entity]:
    """A memory whose name or title is exactly the query leads, whatever its score."""
    wanted = _fold(query)
    exact = [e for e in entities if _fold(e.name) == wanted or (e.title is not None and _fold(e.title) == wanted)]
    return exact + [e for e in entities if e not in exact] if exact else entities


def shown(entity: Entity, relevance: float | None, source: Source = "keyword") -> RecallEntity:
    """One memory as recall returns it: history summarized to a count, relations outgoing."""
    out: RecallEntity = {
        "id": entity.id,
        "name": entity.name,
        "title": entity.title,
        "type": entity.type,
        "namespace": entity.namespace,  # type: ignore[typeddict-item]
        "created_at": entity.created_at,
    }
    if entity.metadata:
        out["metadata"] = summarize(entity.metadata)
    out["observations"] = list(entity.observations)
    out["tags"] = list(entity.tags)
    out["relations"] = [{"from": r.from_name, "to": r.to_name, "type": r.type} for r in entity.relations]
    if entity.archived:
        out["archived"] = True
    out["access_count"] = entity.access_count
    if entity.last_accessed_at:
        out["last_accessed_at"] = entity.last_accessed_at
    out["confidence"] = entity.confidence
    if relevance is not None:
        out["match"] = {"source": source, "relevance": round(relevance, 6)}
    return out


def _noise_inputs(store: RecallStore, terms: Sequence[str]) -> tuple[LazyDocFreq, int]:
    """The frequencies and the memory count the noise guard reads; for a query it does not guard (one term), none
    are read (the count given is 0, which it does not look at)."""
    if not fts.guards(terms):
        return LazyDocFreq(store, terms), 0
    count, first = store.search_stats(terms[: LazyDocFreq.CHUNK])  # one statement where the store can
    return LazyDocFreq(store, terms, first), count


def _search(
    uses: RecallUses, text: str, filters: Filters, limit: int, now: datetime
) -> tuple[list[tuple[int, float]], dict[int, Source], list[Entity] | None, Expression | None] | None:
    """(id, score) best first, in hybrid which signal found each, where the store read them with the ranking the
    memories, and in broad and hybrid the time the query names (issue 38); None when the query holds nothing
    searchable."""
    store = uses.store
    terms = query_terms(text)  # the one split of the query: the frequencies and the plan read these terms
    if not terms:
        return None
    if uses.mode == "fts":
        plan = fts.plan_terms(terms, *_noise_inputs(store, terms))
        if plan is None:
            return None
        rows = store.search_rows(plan, filters, limit)  # the memories read with the ranking: one round trip
        return [(entity.id, score) for entity, score in rows], {}, [entity for entity, _ in rows], None
    from memesh.core import time_expressions
    from memesh.core.recall_modes import TIME_WORDS_DROPPED, plan_broad
    from memesh.ops import recall_search

    said = time_expressions.find(text, now)
    if said is not None and said.kind in TIME_WORDS_DROPPED:  # the asker's clock, not what the memory is about
        terms = _without(terms, said.words) or terms
    when = None if said is None else said.bonus_window()
    broad = plan_broad(terms, LazyDocFreq(store, terms), store.count())
    if broad is None:
        return None
    if uses.semantic is None:
        return recall_search.broad(store, broad, filters, limit, when).matches, {}, None, said
    found = recall_search.hybrid(store, uses.semantic, text, broad, filters=filters, limit=limit, when=when)
    return found.matches, dict(found.sources), None, said


def _without(terms: Sequence[str], words: Sequence[str]) -> list[str]:
    """`terms` less the time expression's words."""
    dropped = set(words)
    return [term for term in terms if term not in dropped]


def time_window(said: Expression) -> TimeWindow:
    """How the answer states the time the query named: its words and the days that got the bonus (inclusive)."""
    from datetime import timedelta

    start, end = said.bonus_window()
    return {"expression": said.text, "since": start.isoformat(), "until": (end - timedelta(days=1)).isoformat()}


def created_filters(filters: Filters, request: RecallInput, now: datetime) -> Result[Filters, MemeshError]:
    """`filters` narrowed to `since` / `until` (issue 38); Failure(validation.bad-body) naming the field for a value
    that is no date, date-time or time expression. Without either, `filters` unchanged (no module is imported)."""
    since, until = request.get("since"), request.get("until")
    if since is None and until is None:
        return Success(filters)
    from memesh.core.time_expressions import created_range

    try:
        low, high = created_range(since, until, now)
    except ValueError as exc:
        field_name = str(exc).split(":", 1)[0]
        return Failure(MemeshError(ErrorCode.BAD_BODY, str(exc), {"field": field_name}))
    return Success(replace(filters, created_since=low, created_until=high))


def recall(uses: RecallUses, request: RecallInput, *, ctx: CallContext) -> Result[RecallOutput, MemeshError]:
    """The ranked envelope for a query (an unsearchable one finds nothing) or, without one, the recent memories."""
    store = uses.store
    limit = request.get("limit", DEFAULT_LIMIT)
    match created_filters(access.scoped(filters_for(request), ctx.caller), request, ctx.now):
        case Success(scoped):  # a member sees only what it may (issue 32), created when it asks (issue 38)
            filters = scoped
        case Failure() as failure:
            return failure
    text = request.get("query") or ""
    said: Expression | None = None
    relevance: dict[int, float] = {}
    sources: dict[int, Source] = {}
    loaded: list[Entity] | None = None
    # What answered, as the search below chooses: hybrid without its extra installed answers as broad.
    mode: Literal["fts", "broad", "hybrid"] = (
        "fts" if uses.mode == "fts" else "hybrid" if uses.semantic is not None and uses.mode == "hybrid" else "broad"
    )
    if text:  # not empty: searched, so whitespace or `???` alone finds nothing rather than listing recent memories
        searched = _search(uses, text, filters, limit, ctx.now)
        if searched is None:
            return Success({"entities": [], "retrieval": {"mode": mode, "truncated": False}})
        matches, sources, loaded, said = searched
        ids = [entity_id for entity_id, _ in matches]
        relevance = scoring.relevance(matches)
    else:
        loaded = store.recent_rows(filters, limit)  # read with the choice where the store can: one round trip
        ids = [entity.id for entity in loaded]
    candidates = store.load(ids) if loaded is None else loaded
    signals = [
        scoring.Signals(e.id, e.last_accessed_at, e.access_count, e.confidence, e.recall_hits, e.recall_misses)
        for e in candidates
    ]
    by_id = {e.id: e for e in candidates}
    # hybrid's matches weigh access frequency less (issue 38); fts, broad and the listing keep the reference's weights
    weight = scoring.HYBRID_FREQUENCY_WEIGHT if text and mode == "hybrid" else scoring.WEIGHTS["frequency"]
    ranked = [by_id[entity_id] for entity_id in scoring.rank(signals, relevance, ctx.now, frequency_weight=weight)]
    if text:
        ranked = exact_matches_first(ranked, text)
    ranked = seen_relations(store, ranked[:limit], ctx.caller)  # a member reads no name it may not see
    # Asked right after the memories were read: a store that read their conflicts with them (PostgreSQL) answers
    # without another statement.
    pairs = store.conflicts([e.name for e in ranked])
    if ctx.caller_session and ranked:  # a later [mem:id] citation in this session credits what recall returned
        try:
            store.record_session_memories(ctx.caller_session, [e.id for e in ranked], "recalled", iso_time(ctx.now))
        except Exception as exc:
            # Bookkeeping, as the access count is: a database this role may only read (a team's read-only member,
            # a read-only file) or a full disk still answers recall, without the citation credit.
            refused = store.database_failure(exc)
            if refused is None or refused.data.get("store") not in ("read-only", "disk-full"):
                raise
    envelope: RecallOutput = {
        "entities": [shown(e, relevance.get(e.id) if text else None, sources.get(e.id, "keyword")) for e in ranked],
        "retrieval": {"mode": mode, "truncated": len(ranked) == limit},
    }
    if said is not None:
        envelope["retrieval"]["time_window"] = time_window(said)
    if pairs:
        envelope["conflicts"] = conflict_lines(pairs, [e.name for e in ranked])
    if ctx.agent_view:
        envelope = sizecap.cap_envelope(envelope)  # type: ignore[assignment,arg-type]
        if pairs:  # a conflict is between two returned memories: the cap may have left one of them out
            kept = conflict_lines(pairs, [entity["name"] for entity in envelope["entities"]])
            if kept:
                envelope["conflicts"] = kept
            else:
                del envelope["conflicts"]
    # Counted last, so that a store that sends it without waiting (PostgreSQL) has no later statement of this call
    # waiting for it; this call ranked on what was known before it either way.
    store.touch(ids, iso_time(ctx.now))
    return Success(envelope)


def conflict_lines(pairs: Sequence[tuple[str, str]], returned: Sequence[str]) -> list[str]:
    """`"a" contradicts "b"` for each stated contradiction whose two memories are both among those returned."""
    names = set(returned)
    return [f'"{source}" contradicts "{target}"' for source, target in pairs if source in names and target in names]
