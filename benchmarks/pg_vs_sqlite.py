"""SQLite and PostgreSQL side by side: remember and recall latency at 10k / 100k memories, and LoCoMo recall.

Everything goes through memesh.app.dispatch.call, on the same synthetic memories as scale.py (its Corpus: a Zipf
vocabulary, titles, observations, project and topic tags) and the same recall cases, one engine after the other
in one run.

- Load: each memory stored by remember, 1,000 calls per transaction, on both engines; with --copy, PostgreSQL is
  filled instead by `memesh db copy` of the SQLite database (the same rows and ids; quicker at 100k), and the copy
  is timed.
- remember: single calls on the loaded database, each its own transaction (p50/p95).
- recall: as an agent calls it (agent_view, limit 20): 1-, 2- and 5-term queries of content words, a 2-term query
  with a project filter, a tag listing, a common and a frequent word (p50/p95 wall, CPU p50).
- --locomo: the LoCoMo dev conversations through remember and recall on both engines (scale.py's method, access
  counts accumulating): session recall@5 on each, and how many of the top five agree (overlap).

PostgreSQL: `--url` of a database where this may create and drop databases (CREATE DATABASE), else a throwaway
cluster started for the run (tools/pg_cluster.py; Debian's postgresql package). Goals (issue 19): PostgreSQL recall
p50 within 1.5x of SQLite's at 100k, remember p50 under 10 ms on a local socket, the same recall@5.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import importlib.util
import itertools
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from _common import Tools, bench_data, emit_json, load_json, machine, machine_line, ms, percentile
from scale import BATCH, Corpus, recall_cases, timed_calls

from memesh.app import dispatch
from memesh.app.operations.database import COPY_DATABASE
from memesh.app.resources import Resources
from memesh.context import CallContext
from memesh.store.open import Store, open_store

ENGINES = ("sqlite", "postgres")


def figures(durations: tuple[list[float], list[float]]) -> dict[str, float]:
    wall, cpu = durations
    return {
        "p50_ms": ms(percentile(wall, 0.5)),
        "p95_ms": ms(percentile(wall, 0.95)),
        "cpu_p50_ms": ms(percentile(cpu, 0.5)),
    }


@contextlib.contextmanager
def postgres_server(url: str | None) -> Iterator[Callable[[], str]]:
    """A function giving the URL of a new empty database per call: on `url`'s server, or a throwaway cluster's."""
    import psycopg

    if url is None:
        path = Path(__file__).resolve().parent.parent / "tools" / "pg_cluster.py"
        spec = importlib.util.spec_from_file_location("memesh_pg_cluster", path)
        assert spec is not None and spec.loader is not None
        tools = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(tools)
        bindir = tools.binaries()
        if bindir is None:
            raise SystemExit("PostgreSQL is not installed: apt-get install -y postgresql, or pass --url")
        cluster = tools.Cluster(bindir, template=False)
        try:
            yield lambda: str(cluster.new_database(migrated=False))
        finally:
            cluster.stop()
        return
    made: list[str] = []
    counter = itertools.count()

    def new() -> str:
        name = f"memesh_bench_{int(time.time())}_{next(counter)}"
        with psycopg.connect(url, autocommit=True) as admin:
            admin.execute(f"CREATE DATABASE {name}")
        made.append(name)
        base, _, query = url.partition("?")
        return f"{base.rsplit('/', 1)[0]}/{name}" + (f"?{query}" if query else "")

    try:
        yield new
    finally:
        with psycopg.connect(url, autocommit=True) as admin:
            for name in made:
                admin.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


def load(store: Store, corpus: Corpus, count: int) -> float:
    """Store `count` memories through remember, BATCH calls per transaction (as scale.py); the seconds it took."""
    tools = Tools(store)
    started = time.perf_counter()
    for start in range(0, count, BATCH):
        with store.transaction():
            for index in range(start, min(start + BATCH, count)):
                tools("remember", corpus.memory(index))
    return time.perf_counter() - started


def corpus_after(seed: int, count: int) -> Corpus:
    """The corpus as it stands after a load of `count` memories: the same queries and new memories follow on both."""
    corpus = Corpus(seed)
    for index in range(count):
        corpus.memory(index)
    return corpus


def _call(tools: Tools, tool: str, arguments: Callable[[], dict[str, Any]]) -> object:
    return tools(tool, arguments())


def measure(store: Store, corpus: Corpus, count: int, samples: int) -> dict[str, Any]:
    fresh = itertools.count(count)
    tools, agent = Tools(store), Tools(store, agent_view=True)
    remember = functools.partial(_call, tools, "remember", lambda: corpus.memory(next(fresh)))
    out: dict[str, Any] = {"remember_single": figures(timed_calls(remember, samples))}
    for case, arguments in recall_cases(corpus).items():
        for _ in range(20):  # warm caches and prepared statements; not measured
            agent("recall", arguments())
        out[case] = figures(timed_calls(functools.partial(_call, agent, "recall", arguments), samples))
    return out


def run_scale(count: int, args: argparse.Namespace, new_database: Callable[[], str]) -> dict[str, Any]:
    result: dict[str, Any] = {"n": count}
    with tempfile.TemporaryDirectory(prefix="memesh-pg-vs-sqlite-") as folder:
        path = Path(folder) / "knowledge-graph.db"
        url = new_database()
        sqlite = open_store(path)
        try:
            result["sqlite_load_seconds"] = round(load(sqlite, Corpus(args.seed), count), 2)
        finally:
            sqlite.close()
        if args.copy:
            started = time.perf_counter()
            copied = dispatch.run(
                COPY_DATABASE, Resources(), {"from": str(path), "to": url}, CallContext("bench", False)
            ).unwrap()
            result["postgres_copy_seconds"] = round(time.perf_counter() - started, 2)
            assert copied["copied"]["entities"] == count
        else:
            pg = open_store(url)
            try:
                result["postgres_load_seconds"] = round(load(pg, Corpus(args.seed), count), 2)
            finally:
                pg.close()
        for engine, target in (("sqlite", path), ("postgres", url)):
            store = open_store(target)
            try:
                result[engine] = measure(store, corpus_after(args.seed, count), count, args.samples)
            finally:
                store.close()
    return result


def run_locomo(args: argparse.Namespace, new_database: Callable[[], str]) -> dict[str, Any]:
    import locomo

    samples = load_json(args.data or bench_data("locomo10-dev.json"))[: args.limit_conversations]
    by_engine: dict[str, list[dict[str, Any]]] = {engine: [] for engine in ENGINES}
    for sample in samples:
        with tempfile.TemporaryDirectory(prefix="memesh-locomo-") as folder:
            for engine in ENGINES:
                opener = functools.partial(open_store, new_database()) if engine == "postgres" else None
                (Path(folder) / engine).mkdir()
                found, _ = locomo.run_conversation(sample, Path(folder) / engine, fresh=False, database=opener)
                by_engine[engine] += found
    scores = {
        engine: locomo.score([r for r in rows if r["category"] != locomo.ADVERSARIAL])
        for engine, rows in by_engine.items()
    }
    pairs = list(zip(by_engine["sqlite"], by_engine["postgres"], strict=True))
    same = sum(a["returned_sessions"][:5] == b["returned_sessions"][:5] for a, b in pairs)
    overlap = [
        len(set(a["returned_sessions"][:5]) & set(b["returned_sessions"][:5])) / max(1, len(a["returned_sessions"][:5]))
        for a, b in pairs
    ]
    return {
        "questions": len(pairs),
        "session_r5": {engine: scores[engine].get("session_r5") for engine in ENGINES},
        "session_mrr": {engine: scores[engine].get("session_mrr") for engine in ENGINES},
        "top5_overlap": round(sum(overlap) / max(1, len(overlap)), 4),
        "top5_identical_order": round(same / max(1, len(pairs)), 4),
        "recall_ms_p50": {
            engine: round(percentile([r["recall_ms"] for r in rows], 0.5), 3) for engine, rows in by_engine.items()
        },
    }


def print_scale(run: dict[str, Any]) -> None:
    print(f"\nn = {run['n']:,}")
    if "postgres_copy_seconds" in run:
        sqlite, pg = run["sqlite_load_seconds"], run["postgres_copy_seconds"]
        print(f"  load: SQLite {sqlite} s through remember; PostgreSQL {pg} s by db copy")
    else:
        sqlite, pg = run["sqlite_load_seconds"], run["postgres_load_seconds"]
        print(f"  load through remember: SQLite {sqlite} s, PostgreSQL {pg} s")
    print(f"  {'':28}{'SQLite p50':>11}{'p95':>9}{'PG p50':>10}{'p95':>9}{'PG/SQLite':>11}")
    for case in run["sqlite"]:
        a, b = run["sqlite"][case], run["postgres"][case]
        ratio = b["p50_ms"] / a["p50_ms"] if a["p50_ms"] else float("nan")
        print(f"  {case:28}{a['p50_ms']:11.3f}{a['p95_ms']:9.3f}{b['p50_ms']:10.3f}{b['p95_ms']:9.3f}{ratio:10.2f}x")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--n", type=int, nargs="*", default=[10_000], help="memory counts (default 10000; 0 for none)")
    parser.add_argument("--samples", type=int, default=300, help="timed calls per latency figure (default 300)")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--copy", action="store_true", help="fill PostgreSQL by db copy of the SQLite database")
    parser.add_argument("--locomo", action="store_true", help="also LoCoMo recall@5 on both, and top-5 overlap")
    parser.add_argument("--data", type=Path, help="the LoCoMo file (default shared/bench/locomo10-dev.json)")
    parser.add_argument("--limit-conversations", type=int)
    parser.add_argument(
        "--url", help="a PostgreSQL database URL with CREATE DATABASE rights (default: a throwaway cluster)"
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of tables")
    args = parser.parse_args(argv)
    with postgres_server(args.url) as new_database:
        runs = [run_scale(count, args, new_database) for count in args.n if count]
        locomo_figures = run_locomo(args, new_database) if args.locomo else None
    if args.json:
        emit_json({"benchmark": "pg_vs_sqlite", "runs": runs, "locomo": locomo_figures, "machine": machine()})
        return 0
    print("SQLite and PostgreSQL through remember/recall (memesh.app.dispatch.call)")
    print(machine_line())
    for run in runs:
        print_scale(run)
    if locomo_figures:
        f = locomo_figures
        print(f"\nLoCoMo ({f['questions']} headline and adversarial questions):")
        print(f"  session R@5  SQLite {f['session_r5']['sqlite']}  PostgreSQL {f['session_r5']['postgres']}")
        print(f"  session MRR  SQLite {f['session_mrr']['sqlite']}  PostgreSQL {f['session_mrr']['postgres']}")
        print(f"  top-5 overlap {f['top5_overlap']}; identical top 5 in order {f['top5_identical_order']}")
        print(
            f"  recall p50   SQLite {f['recall_ms_p50']['sqlite']} ms  PostgreSQL {f['recall_ms_p50']['postgres']} ms"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
