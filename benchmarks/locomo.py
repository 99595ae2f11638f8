"""LoCoMo retrieval: does recall put the session (and the turn) that answers a question near the top?

Data: a LoCoMo file (default `shared/bench/locomo10-dev.json` beside the repository; `--data PATH`). The data is
CC BY-NC 4.0, read at run time only, never shipped.

Method
- Each conversation gets a fresh database in a temporary folder.
- Each session is stored as ONE memory through remember, called with memesh.app.dispatch.call (the function every
  transport calls): name `<sample_id>-session-<N>`, type `conversation`, title the session's date as written in the
  data ("1:56 pm on 8 May, 2023"), tags `date:YYYY-MM-DD` and `conversation:<sample_id>`, and one observation per
  dialogue turn, `<speaker>: <text>`, in order. Image captions in the data are left out: a turn is what was said.
- Each question is asked through recall with its text unchanged, limit 10, agent_view False (nothing is cut).
- Time (issue 38): each session is stored with the call's clock (CallContext.now, the clock every transport gives an
  operation) set to its date and time (`session_N_date_time`), so its created_at is the session's; every question
  is asked with the clock at the conversation's last session (the data gives questions no date of their own; they
  were written after the conversation, about it). `--undated` stores and asks on the real clock (the old harness).
- By default the questions of a conversation are asked in dataset order against its one database, so recall's access
  tracking (access_count and last_accessed_at feed the ranking) accumulates across questions — the product's
  behaviour in use. `--fresh-per-question` asks every question against a pristine copy of the conversation's
  database (built once through remember, file copied per question), so the effect of that accumulation is visible.

Scores
- Session level: a question's gold sessions are those named in its evidence (`D<session>:<turn>`). recall_any@k is 1
  when any gold session is among the first k memories recall returned; MRR is 1/rank of the first gold session
  (0 when none is among the 10 returned); recall_all@5 is 1 when every gold session is among the first 5; NDCG@10
  has binary gains with every gold session at the top as the ideal (as longmemeval.py scores it).
- The recall mode in effect (MEMESH_RECALL_MODE, config.json's `recallMode`, or the default fts) is printed with
  the figures.
- Turn level (dia_id), computed only from what recall returned: walk the returned sessions in order and, within each,
  rank its returned observations by term overlap with the question — the number of distinct question terms
  (memesh.core.terms.query_terms, the product's tokenizer, minus the short English function-word list STOPWORDS
  below) that also occur in the observation — ties kept in conversation order. recall_any@k is 1 when any gold
  dia_id is among the first k turns of that list. remember stores identical observations of one memory once, so one
  stored observation may stand for several dia_ids; the dia_id → (session, observation index) map follows that rule.
- Per category (the data's numbers; commonly 1 multi-hop, 2 temporal, 3 open-domain, 4 single-hop). Category 5
  (adversarial: the answer is not in the conversation) is reported apart and left out of the headline. Questions
  whose evidence names no parsable dia_id are skipped and counted.

Diagnostics, read-only and taken before each recall (so they touch no access count): the match plan recall makes
(memesh.core.query.plan_terms over the query's terms, with the store's document frequencies: terms kept, dropped as
noise, strict AND tried first or OR only), whether the strict expression had any hit, and where the first gold session
sits in plain BM25 order (the store's own search, up to 100): recall takes its 10 candidates from that order and
re-ranks only those.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import json
import math
import os
import re
import shutil
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from _common import Tools, bench_data, emit_json, load_json, machine, median, recall_mode, remember_in_calls

from memesh.core.query import plan_terms
from memesh.core.terms import query_terms
from memesh.model import Filters
from memesh.store.open import Store
from memesh.store.open import open_store as open_store_at
from memesh.store.sqlite import open_store

LIMIT = 10
BM25_DEPTH = 100
ADVERSARIAL = 5
EVIDENCE = re.compile(r"D:?(\d+):(\d+)")
SESSION_KEY = re.compile(r"session_(\d+)")
_FUNCTION_WORDS = (
    "a an and are as at be been but by can could did do does for from had has have he her him his how i if in into "
    "is it its me my not of on or our she so than that the their them then there they this to up was we were what "
    "when where which who whom whose why will with would you your"
)
STOPWORDS = frozenset(_FUNCTION_WORDS.split())

Turn = tuple[int, int]  # (session, turn) as in the dia_id D<session>:<turn>


@dataclass
class Session:
    number: int
    name: str
    entity_id: int
    turns: list[list[Turn]]  # stored observation index → the dia_ids it stands for


@dataclass
class Conversation:
    sample_id: str
    sessions: dict[str, Session]  # by memory name
    by_id: dict[int, Session]
    questions: list[dict[str, Any]] = field(default_factory=list)
    asked_at: datetime | None = None  # the clock questions are asked at: the last session's time (None: the real one)


def parse_turns(items: Iterable[Any]) -> set[Turn]:
    """Every `D<session>:<turn>` in the evidence (tolerating the data's `D8:6; D9:17` and `D:11:26` spellings)."""
    return {(int(m[1]), int(m[2])) for item in items for m in EVIDENCE.finditer(str(item))}


def moment(raw: str) -> datetime | None:
    """A LoCoMo session date ("1:56 pm on 8 May, 2023") as a UTC time; None when it is not one."""
    try:
        return datetime.strptime(raw.strip(), "%I:%M %p on %d %B, %Y").replace(tzinfo=UTC)
    except ValueError:
        return None


def date_tag(raw: str) -> str:
    when = moment(raw)
    return f"date:{when:%Y-%m-%d}" if when is not None else f"date:{raw.strip()}"[:255]


def ingest(tools: Tools, sample: dict[str, Any], *, dated: bool = True) -> Conversation:
    """Each session of one conversation stored as one memory through remember, at its date when `dated`."""
    sample_id = str(sample["sample_id"])
    conversation = sample["conversation"]
    numbers = sorted(int(m[1]) for key in conversation if (m := SESSION_KEY.fullmatch(key)))
    sessions: dict[str, Session] = {}
    latest: datetime | None = None
    for number in numbers:
        observations: list[str] = []
        turns: list[list[Turn]] = []
        index_of: dict[str, int] = {}
        for turn in conversation[f"session_{number}"]:
            text = f"{turn['speaker']}: {turn['text']}"
            dia = parse_turns([turn.get("dia_id", "")])
            if text in index_of:  # remember keeps one copy of a repeated observation
                turns[index_of[text]].extend(dia)
                continue
            index_of[text] = len(observations)
            observations.append(text)
            turns.append(sorted(dia))
        name = f"{sample_id}-session-{number}"
        date = str(conversation.get(f"session_{number}_date_time") or "").strip()
        arguments: dict[str, Any] = {"name": name, "type": "conversation", "tags": [f"conversation:{sample_id}"]}
        if date:
            arguments["title"] = date
            arguments["tags"].insert(0, date_tag(date))
        when = moment(date) if dated else None
        entity_id = remember_in_calls(tools, arguments, observations, when)
        sessions[name] = Session(number, name, entity_id, turns)
        latest = max(latest, when) if latest is not None and when is not None else (when or latest)
    questions = list(sample["qa"])
    return Conversation(sample_id, sessions, {s.entity_id: s for s in sessions.values()}, questions, latest)


@functools.lru_cache(maxsize=65_536)
def content_terms(text: str) -> frozenset[str]:
    return frozenset(query_terms(text)) - STOPWORDS


def rank_turns(question: str, returned: Sequence[tuple[Session, list[str]]]) -> tuple[list[list[Turn]], int]:
    """Turns in the documented order (sessions as returned, turns by overlap with the question), and how many
    returned sessions did not have the observation count the map expects (0 when nothing was cut or changed)."""
    wanted = content_terms(question)
    ranked: list[list[Turn]] = []
    mismatches = 0
    for session, observations in returned:
        if len(observations) != len(session.turns):
            mismatches += 1
        order = sorted(range(len(observations)), key=lambda i: (-len(wanted & content_terms(observations[i])), i))
        ranked.extend(session.turns[i] for i in order if i < len(session.turns))
    return ranked, mismatches


def ndcg(ranked: Sequence[int], gold: set[int], k: int) -> float:
    """NDCG@k with binary gains over sessions (ideal: every gold session at the top), as longmemeval.py scores it."""
    gains = sum(1 / math.log2(position + 1) for position, number in enumerate(ranked[:k], start=1) if number in gold)
    ideal = sum(1 / math.log2(position + 1) for position in range(1, min(len(gold), k) + 1))
    return gains / ideal if ideal else 0.0


def first_rank(ranked: Sequence[Iterable[Any]], gold: set[Any]) -> int | None:
    for position, items in enumerate(ranked, start=1):
        if gold.intersection(items):
            return position
    return None


def diagnose(store: Store, question: str, conversation: Conversation, gold: set[int]) -> dict[str, Any]:
    """What the query became and where BM25 alone puts the gold session — read-only, no access is counted."""
    terms = query_terms(question)
    plan = plan_terms(terms, store.doc_freq(terms), store.count()) if terms else None
    if plan is None:
        return {"terms": [], "dropped": [], "mode": "nothing searchable", "bm25_matches": 0, "bm25_gold_rank": None}
    strict_hit = bool(store.search(replace(plan, modes=("all",)), Filters(), 1)) if plan.strict else None
    bm25 = [conversation.by_id[i].number for i, _ in store.search(plan, Filters(), BM25_DEPTH)]
    broad = [
        conversation.by_id[i].number for i, _ in store.search(replace(plan, modes=("any",)), Filters(), BM25_DEPTH)
    ]
    mode = "OR" if not plan.strict else "strict AND" if strict_hit else "strict AND (no hit) then OR"
    return {
        "terms": list(plan.terms),
        "dropped": list(plan.dropped),
        "mode": mode,
        "bm25_matches": len(bm25),
        "bm25_gold_rank": first_rank([[n] for n in bm25], gold),
        "or_gold_rank": first_rank([[n] for n in broad], gold),
    }


def ask(tools: Tools, conversation: Conversation, qa: dict[str, Any], order: int) -> dict[str, Any] | None:
    """One question through recall, scored; None when its evidence names no turn."""
    gold_turns = parse_turns(qa.get("evidence") or [])
    if not gold_turns:
        return None
    question = str(qa["question"])
    gold_sessions = {session for session, _ in gold_turns}
    diagnostics = diagnose(tools.store, question, conversation, gold_sessions)
    started = time.perf_counter()
    output = tools("recall", {"query": question, "limit": LIMIT}, conversation.asked_at)
    elapsed = time.perf_counter() - started
    returned = [(conversation.sessions[e["name"]], list(e.get("observations", []))) for e in output["entities"]]
    sessions_ranked = [session.number for session, _ in returned]
    turns_ranked, mismatches = rank_turns(question, returned)
    session_rank = first_rank([[n] for n in sessions_ranked], gold_sessions)
    turn_rank = first_rank(turns_ranked, gold_turns)
    return {
        "conversation": conversation.sample_id,
        "order": order,
        "question": question,
        "category": qa.get("category"),
        "gold_sessions": sorted(gold_sessions),
        "gold_turns": [f"D{s}:{t}" for s, t in sorted(gold_turns)],
        "returned_sessions": sessions_ranked,
        "returned_turns": [[f"D{s}:{t}" for s, t in turns] for turns in turns_ranked[:LIMIT]],
        "session_rank": session_rank,
        "session_all5": gold_sessions <= set(sessions_ranked[:5]),
        "session_ndcg10": round(ndcg(sessions_ranked, gold_sessions, 10), 4),
        "turn_rank": turn_rank,
        "time_window": output["retrieval"].get("time_window"),
        "map_mismatches": mismatches,
        "recall_ms": round(elapsed * 1000, 3),
        **diagnostics,
    }


def run_conversation(
    sample: dict[str, Any],
    folder: Path,
    *,
    fresh: bool,
    database: Callable[[], Store] | None = None,
    dated: bool = True,
) -> tuple[list[dict[str, Any]], int]:
    """Every question of one conversation; returns the results and how many were skipped (no parsable evidence).
    `database` opens the conversation's own empty database elsewhere than a file in `folder` (PostgreSQL)."""
    results: list[dict[str, Any]] = []
    skipped = 0
    template = folder / "conversation.db"
    store = database() if database is not None else open_store(template)
    try:
        conversation = ingest(Tools(store), sample, dated=dated)
        if fresh:
            store.close()
        for order, qa in enumerate(conversation.questions):
            if fresh:
                copy = folder / "question.db"
                shutil.copyfile(template, copy)
                store = open_store(copy)
            try:
                result = ask(Tools(store), conversation, qa, order)
            finally:
                if fresh:
                    store.close()
                    for leftover in folder.glob("question.db*"):
                        leftover.unlink()
            if result is None:
                skipped += 1
            else:
                results.append(result)
    finally:
        if not fresh:
            store.close()
    return results, skipped


def score(results: Sequence[dict[str, Any]]) -> dict[str, Any]:
    n = len(results)
    if not n:
        return {"questions": 0}

    def share(key: str, k: int) -> float:
        return round(sum(1 for r in results if r[key] is not None and r[key] <= k) / n, 4)

    mrr = sum(1 / r["session_rank"] for r in results if r["session_rank"] is not None) / n
    return {
        "questions": n,
        "session_r5": share("session_rank", 5),
        "session_r10": share("session_rank", 10),
        "session_mrr": round(mrr, 4),
        "session_all5": round(sum(1 for r in results if r["session_all5"]) / n, 4),
        "session_ndcg10": round(sum(r["session_ndcg10"] for r in results) / n, 4),
        "turn_r5": share("turn_rank", 5),
        "turn_r10": share("turn_rank", 10),
    }


def worst_misses(results: Sequence[dict[str, Any]], count: int) -> list[dict[str, Any]]:
    """Headline questions whose gold session recall did not return, worst first — the query matched no gold session
    at all (even as OR), then strict AND left it out, then by how deep BM25 put it — taken in turn from each
    conversation so that one conversation does not fill the list; dataset order among equals."""
    misses = [r for r in results if r["category"] != ADVERSARIAL and r["session_rank"] is None]
    misses.sort(
        key=lambda r: (
            r["bm25_gold_rank"] is not None,
            r.get("or_gold_rank") is not None,
            -(r["bm25_gold_rank"] or r.get("or_gold_rank") or 0),
        )
    )
    queues: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for miss in misses:
        queues[miss["conversation"]].append(miss)
    picked: list[dict[str, Any]] = []
    while len(picked) < count and any(queues.values()):
        for queue in queues.values():
            if queue and len(picked) < count:
                picked.append(queue.pop(0))
    keys = (
        *("conversation", "question", "category", "gold_sessions", "returned_sessions"),
        *("bm25_gold_rank", "bm25_matches", "or_gold_rank", "terms", "dropped", "mode"),
    )
    return [{key: miss.get(key) for key in keys} for miss in picked]


def miss_causes(results: Sequence[dict[str, Any]]) -> dict[str, int]:
    """Why headline questions missed at 10: the strict all-term match ran and left the gold session out, the
    query's terms do not occur in the gold session at all, or it matched but BM25 put it below 10."""
    causes = {"strict_and_left_gold_out": 0, "gold_not_matched_by_any_term": 0, "matched_below_10": 0}
    for r in results:
        if r["category"] == ADVERSARIAL or r["session_rank"] is not None:
            continue
        if r["bm25_gold_rank"] is not None:
            causes["matched_below_10"] += 1
        elif r.get("or_gold_rank") is not None:
            causes["strict_and_left_gold_out"] += 1
        else:
            causes["gold_not_matched_by_any_term"] += 1
    return causes


def summarize(results: Sequence[dict[str, Any]], skipped: int, seconds: float) -> dict[str, Any]:
    headline = [r for r in results if r["category"] != ADVERSARIAL]
    by_category: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for result in headline:
        by_category[str(result["category"])].append(result)
    return {
        **score(headline),
        "seconds": round(seconds, 2),
        "recall_ms_p50": round(median([r["recall_ms"] for r in results]), 3),
        "per_category": {category: score(by_category[category]) for category in sorted(by_category)},
        "adversarial": score([r for r in results if r["category"] == ADVERSARIAL]),
        "skipped_no_evidence": skipped,
        "map_mismatches": sum(r["map_mismatches"] for r in results),
        "miss_causes": miss_causes(results),
    }


def print_table(summary: dict[str, Any], mode: str, data: Path) -> None:
    print(f"LoCoMo retrieval through recall — {data.name}, access counts {mode}, {summary['seconds']} s")
    print(f"recall mode: {recall_mode()}")
    print(f"{'':16}{'n':>6}{'S@5':>8}{'S@10':>8}{'MRR':>8}{'Sall@5':>8}{'NDCG10':>8}{'T@5':>8}{'T@10':>8}")
    rows = [("all (1-4)", summary)]
    rows += [(f"category {c}", s) for c, s in summary["per_category"].items()]
    rows.append(("5 adversarial", summary["adversarial"]))
    for label, row in rows:
        if not row.get("questions"):
            continue
        keys = ("session_r5", "session_r10", "session_mrr", "session_all5", "session_ndcg10", "turn_r5", "turn_r10")
        figures = "".join(f"{row[k]:8.3f}" for k in keys)
        print(f"{label:16}{row['questions']:6d}{figures}")
    print(f"skipped (no parsable evidence): {summary['skipped_no_evidence']}; recall p50 {summary['recall_ms_p50']} ms")
    print(f"headline misses at 10 by cause: {summary['miss_causes']}")


def print_misses(misses: Sequence[dict[str, Any]]) -> None:
    print(f"\nworst {len(misses)} misses (gold session not among the 10 returned):")
    for miss in misses:
        depth = miss["bm25_gold_rank"]
        where = (
            f"BM25 rank {depth} of {miss['bm25_matches']}" if depth else f"not among the {miss['bm25_matches']} matched"
        )
        if miss["mode"] != "OR":
            broad = miss["or_gold_rank"]
            where += f"; OR alone would rank it {broad}" if broad else "; OR alone would not match it either"
        print(f"- [{miss['conversation']} cat {miss['category']}] {miss['question']}")
        print(f"    gold session {miss['gold_sessions']}, returned {miss['returned_sessions']}; {where}")
        print(f"    query: {miss['mode']} over {miss['terms']}; dropped as noise {miss['dropped']}")


@contextlib.contextmanager
def schema(url: str | None, index: int) -> Iterator[str | None]:
    """A PostgreSQL schema of its own for one conversation in the database at `url`, as a URL selecting it; dropped
    afterwards. None without a URL (the conversation runs on a SQLite file)."""
    if not url:
        yield None
        return
    import psycopg

    name = f"memesh_locomo_{os.getpid()}_{index}"
    with psycopg.connect(url, autocommit=True) as admin:
        admin.execute(f"CREATE SCHEMA {name}")
        try:
            separator = "&" if "?" in url else "?"
            yield f"{url}{separator}options=-csearch_path%3D{name}"
        finally:
            admin.execute(f"DROP SCHEMA {name} CASCADE")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--data", type=Path, help="a LoCoMo JSON file (default: shared/bench/locomo10-dev.json)")
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of a table")
    parser.add_argument("--out", type=Path, help="write per-question results (JSON lines) to this file")
    parser.add_argument(
        "--fresh-per-question", action="store_true", help="ask each question against a pristine copy (no accesses)"
    )
    parser.add_argument("--worst", type=int, default=10, help="how many misses to list (default 10)")
    parser.add_argument("--limit-conversations", type=int, help="only the first N conversations (quick runs)")
    parser.add_argument(
        "--undated", action="store_true", help="store every session and ask on the real clock (the old harness)"
    )
    parser.add_argument(
        "--database-url",
        default=os.environ.get("MEMESH_DATABASE_URL"),
        help="run on PostgreSQL: each conversation in a schema of its own in this database, dropped afterwards "
        "(default MEMESH_DATABASE_URL; without either, a SQLite file per conversation)",
    )
    args = parser.parse_args(argv)
    if args.database_url and args.fresh_per_question:
        parser.error("--fresh-per-question copies SQLite files: it does not run on PostgreSQL")
    data = args.data or bench_data("locomo10-dev.json")
    samples = load_json(data)[: args.limit_conversations]
    started = time.perf_counter()
    results: list[dict[str, Any]] = []
    skipped = 0
    for index, sample in enumerate(samples):
        with tempfile.TemporaryDirectory(prefix="memesh-locomo-") as folder, schema(args.database_url, index) as url:
            opener = (lambda: open_store_at(url)) if url else None
            found, missing = run_conversation(
                sample, Path(folder), fresh=args.fresh_per_question, database=opener, dated=not args.undated
            )
        results += found
        skipped += missing
    seconds = time.perf_counter() - started
    summary = summarize(results, skipped, seconds)
    mode = "fresh per question" if args.fresh_per_question else "accumulated across questions"
    misses = worst_misses(results, args.worst)
    if args.out:
        with args.out.open("w", encoding="utf-8") as handle:
            for result in results:
                handle.write(json.dumps(result, ensure_ascii=False) + "\n")
    if args.json:
        emit_json(
            {
                "benchmark": "locomo",
                "recall_mode": recall_mode(),
                "data": str(data),
                "conversations": len(samples),
                "access_counts": mode,
                "clock": "the real one (--undated)" if args.undated else "sessions at their dates, asked at the last",
                "summary": summary,
                "worst_misses": misses,
                "machine": machine(),
            }
        )
    else:
        print_table(summary, mode, data)
        print_misses(misses)
    return 0


if __name__ == "__main__":
    sys.exit(main())
