"""LongMemEval retrieval: does recall put the haystack sessions that hold the answer near the top?

Data: a file in the official LongMemEval JSON shape (default `shared/bench/longmemeval-s-slice.json` beside the
repository, 16 questions; the same script runs the full 500-question `longmemeval_s` file with `--data`). Read at
run time only, never shipped.

Method
- Each question gets a fresh database in a temporary folder (so no access count carries over between questions).
- Each haystack session is stored as one memory through remember, called with dispatch.call (the function every
  transport calls): name the session id, type `conversation`, title the session date as written in the data
  ("2023/05/20 (Sat) 02:21"), tag `date:YYYY-MM-DD`, and one observation per turn, `<role>: <content>`. A turn longer
  than remember's 10,000-character observation limit is split at whitespace into several observations; a session of
  more than 100 observations is stored by further remember calls with the same name (remember's append path).
- The question is asked through recall with its text unchanged, limit 10, agent_view False (nothing is cut).
- Time (issue 38): each session is stored with the call's clock (CallContext.now, the clock every transport gives an
  operation) set to its `haystack_dates` time, so its created_at is the session's date, and the question is asked
  with the clock at its `question_date`, so "10 days ago" means what it meant to the asker. `--undated` stores and
  asks on the real clock instead (every session "now", as this script did before).

Scores (session level; gold = `answer_session_ids`)
- recall_any@k: 1 when any gold session is among the first k returned; recall_all@k: 1 when all of them are.
- NDCG@10 with binary gains (ideal: every gold session at the top); MRR: 1/rank of the first gold session (0 if none).
- Per `question_type`; abstention questions (ids ending in `_abs`: the answer is not in the haystack) apart, left out
  of the headline.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from _common import (
    Tools,
    bench_data,
    emit_json,
    load_json,
    machine,
    median,
    recall_mode,
    remember_in_calls,
    split_long,
)

from memesh.store.sqlite import open_store

LIMIT = 10


def moment(raw: str) -> datetime | None:
    """A LongMemEval date ("2023/05/20 (Sat) 02:21") as a UTC time; None when it is not one."""
    try:
        return datetime.strptime(raw.strip(), "%Y/%m/%d (%a) %H:%M").replace(tzinfo=UTC)
    except ValueError:
        return None


def date_tag(raw: str) -> str:
    when = moment(raw)
    return f"date:{when:%Y-%m-%d}" if when is not None else f"date:{raw.strip()}"[:255]


def session_observations(turns: Sequence[dict[str, Any]]) -> list[str]:
    return [piece for turn in turns for piece in split_long(f"{turn['role']}: {turn['content']}")]


def ingest(tools: Tools, item: dict[str, Any], *, dated: bool = True) -> None:
    """Each haystack session of one question stored as one memory through remember, at its date when `dated`."""
    dates = item.get("haystack_dates") or [""] * len(item["haystack_sessions"])
    for session_id, date, turns in zip(item["haystack_session_ids"], dates, item["haystack_sessions"], strict=True):
        observations = session_observations(turns)
        if not observations:
            continue  # remember refuses a memory with nothing in it; an empty session holds no answer anyway
        arguments: dict[str, Any] = {"name": str(session_id), "type": "conversation"}
        if str(date).strip():
            arguments["title"] = str(date).strip()
            arguments["tags"] = [date_tag(str(date))]
        remember_in_calls(tools, arguments, observations, moment(str(date)) if dated else None)


def ndcg(ranked: Sequence[str], gold: set[str], k: int) -> float:
    gains = sum(1 / math.log2(position + 1) for position, name in enumerate(ranked[:k], start=1) if name in gold)
    ideal = sum(1 / math.log2(position + 1) for position in range(1, min(len(gold), k) + 1))
    return gains / ideal if ideal else 0.0


def ask(item: dict[str, Any], folder: Path, *, dated: bool = True) -> dict[str, Any]:
    """One question: a fresh database holding its haystack, then one recall (at the question's date when `dated`),
    scored."""
    store = open_store(folder / "question.db")
    try:
        tools = Tools(store)
        started = time.perf_counter()
        ingest(tools, item, dated=dated)
        ingest_seconds = time.perf_counter() - started
        asked = moment(str(item.get("question_date") or "")) if dated else None
        started = time.perf_counter()
        output = tools("recall", {"query": str(item["question"]), "limit": LIMIT}, asked)
        recall_seconds = time.perf_counter() - started
    finally:
        store.close()
    ranked = [str(entity["name"]) for entity in output["entities"]]
    gold = {str(name) for name in item.get("answer_session_ids") or []}
    first = next((position for position, name in enumerate(ranked, start=1) if name in gold), None)
    return {
        "question_id": item["question_id"],
        "question_type": item.get("question_type"),
        "question": item["question"],
        "abstention": str(item["question_id"]).endswith("_abs"),
        "gold_sessions": sorted(gold),
        "returned_sessions": ranked,
        "rank": first,
        "time_window": output["retrieval"].get("time_window"),
        "recall_any@5": bool(gold.intersection(ranked[:5])),
        "recall_any@10": bool(gold.intersection(ranked[:10])),
        "recall_all@5": bool(gold) and gold <= set(ranked[:5]),
        "recall_all@10": bool(gold) and gold <= set(ranked[:10]),
        "ndcg@10": round(ndcg(ranked, gold, 10), 4),
        "sessions": len(item["haystack_sessions"]),
        "ingest_seconds": round(ingest_seconds, 3),
        "recall_ms": round(recall_seconds * 1000, 3),
    }


def score(results: Sequence[dict[str, Any]]) -> dict[str, Any]:
    n = len(results)
    if not n:
        return {"questions": 0}

    def mean(key: str) -> float:
        return round(sum(float(r[key]) for r in results) / n, 4)

    mrr = round(sum(1 / r["rank"] for r in results if r["rank"]) / n, 4)
    return {
        "questions": n,
        # The same keys as locomo.py's summary (session-level recall_any@k is the retrieval unit of both).
        "session_r5": mean("recall_any@5"),
        "session_r10": mean("recall_any@10"),
        "session_mrr": mrr,
        "recall_any5": mean("recall_any@5"),
        "recall_any10": mean("recall_any@10"),
        "recall_all5": mean("recall_all@5"),
        "recall_all10": mean("recall_all@10"),
        "ndcg10": mean("ndcg@10"),
        "mrr": mrr,
    }


def summarize(results: Sequence[dict[str, Any]], seconds: float) -> dict[str, Any]:
    headline = [r for r in results if not r["abstention"]]
    by_type: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for result in headline:
        by_type[str(result["question_type"])].append(result)
    return {
        **score(headline),
        "seconds": round(seconds, 2),
        "recall_ms_p50": round(median([r["recall_ms"] for r in results]), 3),
        "ingest_seconds_p50": round(median([r["ingest_seconds"] for r in results]), 3),
        "per_type": {kind: score(by_type[kind]) for kind in sorted(by_type)},
        "abstention": score([r for r in results if r["abstention"]]),
    }


def print_table(summary: dict[str, Any], data: Path) -> None:
    print(f"LongMemEval retrieval through recall — {data.name}, {summary['seconds']} s")
    print(f"recall mode: {recall_mode()}")
    keys = ("recall_any5", "recall_any10", "recall_all5", "recall_all10", "ndcg10", "mrr")
    print(f"{'':26}{'n':>5}{'any@5':>8}{'any@10':>8}{'all@5':>8}{'all@10':>8}{'NDCG10':>8}{'MRR':>8}")
    rows = [
        ("all (no abstention)", summary),
        *summary["per_type"].items(),
        ("abstention (_abs)", summary["abstention"]),
    ]
    for label, row in rows:
        if row.get("questions"):
            print(f"{label:26}{row['questions']:5d}" + "".join(f"{row[k]:8.3f}" for k in keys))
    print(f"recall p50 {summary['recall_ms_p50']} ms; loading one haystack p50 {summary['ingest_seconds_p50']} s")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--data", type=Path, help="a LongMemEval JSON file (default: longmemeval-s-slice.json)")
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of a table")
    parser.add_argument("--out", type=Path, help="write per-question results (JSON lines) to this file")
    parser.add_argument("--limit-questions", type=int, help="only the first N questions (quick runs)")
    parser.add_argument(
        "--undated", action="store_true", help="store every session and ask on the real clock (the old harness)"
    )
    args = parser.parse_args(argv)
    data = args.data or bench_data("longmemeval-s-slice.json")
    items = load_json(data)[: args.limit_questions]
    started = time.perf_counter()
    results: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="memesh-longmemeval-") as folder:
        for item in items:
            results.append(ask(item, Path(folder), dated=not args.undated))
            for leftover in Path(folder).glob("*"):
                leftover.unlink()
    summary = summarize(results, time.perf_counter() - started)
    if args.out:
        with args.out.open("w", encoding="utf-8") as handle:
            for result in results:
                handle.write(json.dumps(result, ensure_ascii=False) + "\n")
    if args.json:
        emit_json(
            {
                "benchmark": "longmemeval",
                "recall_mode": recall_mode(),
                "data": str(data),
                "clock": "real (--undated)" if args.undated else "sessions at their dates, asked at question_date",
                "summary": summary,
                "machine": machine(),
            }
        )
    else:
        print_table(summary, data)
    return 0


if __name__ == "__main__":
    sys.exit(main())
