"""Scale: size, load time, remember and recall latency, and memory at 10k / 100k (1M opt-in) synthetic memories.

Everything goes through memesh.app.dispatch.call, the function every transport calls — nothing is seeded into tables.

Data (deterministic for a seed): a vocabulary of 20,000 pseudo-words whose use follows a Zipf law (weight 1/rank),
so a few words are everywhere and most are rare, as in real text. Each memory has a type, a title of 3–8 words, 2–5
observations of 10–30 words, one `project:` tag (20 projects, Zipf-weighted) and 1–3 `topic:` tags (300 topics).

Measures
- bulk load: every memory stored by a remember call; batches of 1,000 calls run inside one store.transaction() (each
  remember then takes a savepoint instead of its own BEGIN IMMEDIATE … COMMIT) — the same operation, one commit
  per batch, as an import would do.
- export and import: the export tool over every memory, then the import tool loading that bundle into an empty
  database (validated first, then one transaction), each timed; `backup.py` times the same through the CLI.
- database size on disk after the load (the store closed, so the WAL is checkpointed into the file).
- remember latency: single calls, each its own transaction, on the loaded database (p50/p95/p99).
- recall latency (p50/p95/p99 of wall time, and p50/p95 of the process's CPU time, which other load on the machine
  disturbs less), as an agent calls it (agent_view, default limit 20), for 1-, 2- and 5-term queries of content words, a
  2-term query with a `project:` tag filter, and a tag listing with no query. Content words are drawn log-uniformly
  over frequency rank 100–20,000 (every order of magnitude of frequency equally likely); the 100 most frequent words
  carry half of all the text, as English function words do, which keyword queries leave out. Their cost is shown
  apart: a 1-term query on a word of rank 10–99 ("common") and on one of the ten most frequent ("frequent", in
  nearly every memory — the worst case). The share of memories the content words occur in is reported (p10/p50/p90).
- peak memory: resource.getrusage(RUSAGE_SELF).ru_maxrss of the process (one process per --n); and, on Linux, the
  resident memory at the end split into private memory and mapped file pages (the database is read through a memory
  map: its touched pages count in RSS but are the OS page cache, shared, not a copy per process).
- `--profile`: cProfile of the recall runs, and the time recall spent inside each store method (SQL plus its row
  handling) against the rest (validation, the match plan, scoring, building the answer, the size cap).
- matches: for each recall case, how many memories its timed queries matched (p10/p50/p90): the memories of the
  keyword searches recall ran (the plan's first mode with any match, filters applied; broad's fill included), counted
  after the timing. Hybrid's semantic pool of newest memories is not a match and is not counted.
- `--fresh-runs K`: the first recall in a fresh process, K times: `memesh recall "<2 content words>" --json` of this
  install against the measured database (HOME a temp folder, the recall mode from this environment), each a new
  process from spawn to exit: wall, the child's CPU (user + system) and its peak RSS (os.wait4), medians.
- the 1-minute load average at the end of each case, beside its figures (the machine is shared).
- `--db PATH`: measure a copy of an existing database instead of seeding one (no bulk load, no bulk-load figures);
  the database must hold this corpus for this --seed, e.g. a file of pg_vs_sqlite.py's cache
  (`pg_vs_sqlite-seed7-n100000-schema14.db`). Its memory count is n, and the queries and new memories are drawn as
  after a load of n, so they are the ones a seeding run draws. The file itself is never written.

Target: recall p50 ≤ 5 ms at 100k.
"""

from __future__ import annotations

import argparse
import cProfile
import functools
import io
import itertools
import json
import math
import os
import pstats
import random
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from _common import Tools, emit_json, machine, machine_line, median, ms, percentile, recall_mode

from memesh.core import sizecap
from memesh.core.query import MatchPlan
from memesh.model import Filters
from memesh.store.reads import filter_sql
from memesh.store.sqlite import SqliteStore, open_store
from memesh.store.sqlite_search import fts5_expressions

VOCABULARY = 20_000
CONTENT_RANK = 100  # query words come from this frequency rank on (the words above it are half of all the text)
PROJECTS = 20
TOPICS = 300
BATCH = 1_000
TYPES = ("decision", "pattern", "lesson_learned", "note", "bug_fix", "feature", "reference")
TARGET_CASES = ("recall_1_term", "recall_2_terms", "recall_5_terms")
STORE_METHODS = ("count", "doc_freq", "search", "recent", "load", "touch", "conflicts")
_ONSET_TEXT = "b c d f g h j k l m n p r s t v w z br ch cl dr fl gr pl pr sh st th tr"
_ONSETS = _ONSET_TEXT.split()
_VOWELS = ["a", "e", "i", "o", "u", "ai", "ea", "ee", "io", "ou"]
_CODAS = ["", "", "n", "r", "s", "t", "l", "m", "nd", "st", "rk"]


class Corpus:
    """The synthetic vocabulary and the memories drawn from it (deterministic for a seed)."""

    def __init__(self, seed: int) -> None:
        self.random = random.Random(seed)
        self.words = self._words(VOCABULARY)
        self.cum = list(itertools.accumulate(1 / (rank + 1) for rank in range(VOCABULARY)))
        self.projects = [f"project:{name}" for name in self._words(PROJECTS)]
        self.project_cum = list(itertools.accumulate(1 / (rank + 1) for rank in range(PROJECTS)))
        self.topics = [f"topic:{name}" for name in self.words[100 : 100 + TOPICS]]

    def _words(self, count: int) -> list[str]:
        seen: dict[str, None] = {}
        while len(seen) < count:
            syllables = self.random.choice((1, 2, 2, 3, 3, 4))
            word = "".join(
                self.random.choice(_ONSETS) + self.random.choice(_VOWELS) + self.random.choice(_CODAS)
                for _ in range(syllables)
            )
            seen.setdefault(word, None)
        return list(seen)

    def text(self, low: int, high: int) -> str:
        return " ".join(self.random.choices(self.words, cum_weights=self.cum, k=self.random.randint(low, high)))

    def memory(self, index: int) -> dict[str, Any]:
        title = self.text(3, 8)
        tags = [self.random.choices(self.projects, cum_weights=self.project_cum)[0]]
        tags += self.random.sample(self.topics, self.random.randint(1, 3))
        return {
            "name": f"{title.split()[0]}-{index}",
            "type": self.random.choice(TYPES),
            "title": title.capitalize(),
            "observations": [self.text(10, 30).capitalize() + "." for _ in range(self.random.randint(2, 5))],
            "tags": tags,
        }

    def query_term(self, low: int = CONTENT_RANK, high: int = VOCABULARY) -> str:
        """A vocabulary word, log-uniform over frequency rank low..high."""
        rank = int(math.exp(self.random.uniform(math.log(low), math.log(high))))
        return self.words[min(rank, high - 1)]

    def query(self, terms: int) -> str:
        return " ".join(self.query_term() for _ in range(terms))

    def common_term(self) -> str:
        return self.query_term(10, CONTENT_RANK)

    def frequent_term(self) -> str:
        return self.words[self.random.randrange(10)]

    def project(self) -> str:
        return self.random.choices(self.projects, cum_weights=self.project_cum)[0]


def corpus_after(seed: int, count: int) -> Corpus:
    """The corpus as it stands after a load of `count` memories: the queries and new memories a seeding run draws."""
    corpus = Corpus(seed)
    for index in range(count):
        corpus.memory(index)
    return corpus


EXPORT_LIMIT_MAX = 1_000_000  # the export tool's own maximum


def bulk_load(tools: Tools, corpus: Corpus, count: int) -> float:
    """Store `count` memories through remember, BATCH calls per transaction; returns the seconds it took."""
    started = time.perf_counter()
    for start in range(0, count, BATCH):
        with tools.store.transaction():
            for index in range(start, min(start + BATCH, count)):
                tools("remember", corpus.memory(index))
    return time.perf_counter() - started


def timed_calls(call: Callable[[], object], samples: int) -> tuple[list[float], list[float]]:
    """Wall and CPU seconds of each of `samples` calls."""
    wall, cpu = [], []
    for _ in range(samples):
        started, cpu_started = time.perf_counter(), time.process_time()
        call()
        cpu.append(time.process_time() - cpu_started)
        wall.append(time.perf_counter() - started)
    return wall, cpu


def latency(durations: tuple[list[float], list[float]]) -> dict[str, float]:
    wall, cpu = durations
    return {
        "p50_ms": ms(percentile(wall, 0.5)),
        "p95_ms": ms(percentile(wall, 0.95)),
        "p99_ms": ms(percentile(wall, 0.99)),
        "cpu_p50_ms": ms(percentile(cpu, 0.5)),
        "cpu_p95_ms": ms(percentile(cpu, 0.95)),
    }


def recall_cases(corpus: Corpus) -> dict[str, Callable[[], dict[str, Any]]]:
    """Each recall case as a function returning fresh arguments (new terms every call)."""
    return {
        "recall_1_term": lambda: {"query": corpus.query(1)},
        "recall_2_terms": lambda: {"query": corpus.query(2)},
        "recall_5_terms": lambda: {"query": corpus.query(5)},
        "recall_2_terms_tag_filter": lambda: {"query": corpus.query(2), "tag": corpus.project()},
        "recall_tag_only": lambda: {"tag": corpus.project()},
        "recall_1_common_term": lambda: {"query": corpus.common_term()},
        "recall_1_frequent_term": lambda: {"query": corpus.frequent_term()},
    }


def recall_with(agent: Tools, arguments: Callable[[], dict[str, Any]]) -> object:
    return agent("recall", arguments())


class SearchLog:
    """Records the keyword searches recall asks the store for (plan and filters; appending is all it does while
    timed), so that how many memories each query matched can be counted after the timing."""

    def __init__(self, store: SqliteStore) -> None:
        self.store = store
        self.calls: list[tuple[MatchPlan, Filters]] = []
        self.recalls: list[int] = []  # where each recall's searches start in `calls`
        self._search = store.search

        def search(plan: MatchPlan, filters: Filters, limit: int) -> list[tuple[int, float]]:
            self.calls.append((plan, filters))
            return self._search(plan, filters, limit)

        store.search = search  # type: ignore[method-assign]

    def restore(self) -> None:
        del self.store.search  # the instance attribute goes; the class's method is back

    def recall_starts(self) -> None:
        self.recalls.append(len(self.calls))

    def matched(self) -> list[int]:
        """For each recall logged, how many memories its searches matched (the union over its searches)."""
        bounds = [*self.recalls, len(self.calls)]
        return [len(set().union(*map(self._ids, self.calls[start:end]))) for start, end in itertools.pairwise(bounds)]

    def _ids(self, call: tuple[MatchPlan, Filters]) -> set[int]:
        """The ids a search matched: its plan's first mode with any match, the filters applied (as `search`)."""
        plan, filters = call
        where, params = filter_sql(filters)
        # The matches first, then the filters on them (a join lets the planner walk every memory instead).
        matches = "SELECT rowid FROM entities_fts WHERE entities_fts MATCH ?"
        sql = f"SELECT e.id FROM entities e WHERE e.id IN ({matches}) {where}"
        for expression in fts5_expressions(plan):
            ids = {row[0] for row in self.store.conn.execute(sql, (expression, *params))}
            if ids:
                return ids
        return set()


def matched_share(counts: Sequence[int]) -> dict[str, float]:
    return {f"p{p}": percentile(counts, p / 100) for p in (10, 50, 90)}


def measure_recall(agent: Tools, corpus: Corpus, samples: int) -> dict[str, dict[str, Any]]:
    figures: dict[str, dict[str, Any]] = {}
    store = agent.store
    assert isinstance(store, SqliteStore)
    for case, arguments in recall_cases(corpus).items():
        for _ in range(20):  # warm the page cache and the statement cache; not measured
            agent("recall", arguments())
        log = SearchLog(store)
        try:
            timed = timed_calls(functools.partial(logged_recall, agent, arguments, log), samples)
        finally:
            log.restore()
        figures[case] = latency(timed) | {"load_average_1m": os.getloadavg()[0]}
        if log.calls:
            figures[case]["matched"] = matched_share(log.matched())
    return figures


def logged_recall(agent: Tools, arguments: Callable[[], dict[str, Any]], log: SearchLog) -> object:
    log.recall_starts()
    return agent("recall", arguments())


class CpuTimer:
    """Wraps callables (on one object only), adding up the CPU seconds spent inside each under a label."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = {}
        self._restore: list[tuple[object, str, object]] = []

    def wrap(self, owner: object, name: str, label: str) -> None:
        method = getattr(owner, name)
        self.seconds[label] = 0.0

        @functools.wraps(method)
        def timed(*args: Any, **kwargs: Any) -> Any:
            started = time.process_time()
            try:
                return method(*args, **kwargs)
            finally:
                self.seconds[label] += time.process_time() - started

        self._restore.append((owner, name, method))
        setattr(owner, name, timed)

    def restore(self) -> None:
        for owner, name, method in reversed(self._restore):
            setattr(owner, name, method)


def profile_recall(store: SqliteStore, corpus: Corpus, samples: int) -> dict[str, Any]:
    """Where recall's CPU time goes: each store method (its SQL and row handling), the agent size cap, the rest
    (validation, the match plan, scoring, building the answer); and cProfile's top functions by own CPU time."""
    agent = Tools(store, agent_view=True)
    timer = CpuTimer()
    for name in STORE_METHODS:
        timer.wrap(store, name, f"store.{name}")
    timer.wrap(sizecap, "cap_envelope", "sizecap.cap_envelope")
    cases = [value for key, value in recall_cases(corpus).items() if key in TARGET_CASES]
    started = time.process_time()
    try:
        for arguments in cases:
            for _ in range(samples):
                agent("recall", arguments())
    finally:
        timer.restore()
    total = time.process_time() - started
    calls = samples * len(cases)
    # A second pass under cProfile, apart: its own overhead would swell the Python-heavy parts of the first.
    profiler = cProfile.Profile(time.process_time)
    profiler.enable()
    for arguments in cases:
        for _ in range(samples):
            agent("recall", arguments())
    profiler.disable()
    report = io.StringIO()
    pstats.Stats(profiler, stream=report).sort_stats("tottime").print_stats(18)
    return {
        "recalls": calls,
        "cpu_mean_ms": ms(total / calls),
        "cpu_ms_per_recall": {label: ms(seconds / calls) for label, seconds in timer.seconds.items() if seconds},
        "cpu_ms_elsewhere_per_recall": ms((total - sum(timer.seconds.values())) / calls),
        "cprofile_top_by_own_cpu": report.getvalue(),
    }


def term_share(store: SqliteStore, corpus: Corpus, count: int) -> dict[str, float]:
    """In what share of the memories the content words queries use occur (p10/p50/p90 over 300 draws)."""
    terms = [corpus.query_term() for _ in range(300)]
    freq = store.doc_freq(terms)
    shares = [freq.get(term, 0) / count for term in terms]
    return {f"p{p}": round(percentile(shares, p / 100), 4) for p in (10, 50, 90)}


# Runs one command and prints its wall time, CPU and peak RSS. A small process of its own forks the command: a child's
# peak RSS on Linux starts from its parent's (kept across fork and exec), and this benchmark's own is hundreds of MB.
_LAUNCHER = """
import json, os, sys, time
started = time.perf_counter()
pid = os.fork()
if pid == 0:
    os.dup2(os.open(os.devnull, os.O_WRONLY), 1)
    os.execv(sys.argv[1], sys.argv[1:])
_, status, usage = os.wait4(pid, 0)
wall = time.perf_counter() - started
code = os.waitstatus_to_exitcode(status)
print(json.dumps({"wall": wall, "cpu": usage.ru_utime + usage.ru_stime, "rss_kb": usage.ru_maxrss, "code": code}))
"""


def fresh_recalls(path: Path, corpus: Corpus, runs: int) -> dict[str, Any]:
    """The first recall in a fresh process, `runs` times: `memesh recall "<2 words>" --json` of this install against
    the database at `path`, spawn to exit; medians of wall, the child's CPU (user + system) and its peak RSS."""
    memesh = Path(sys.executable).parent / "memesh"
    walls, cpus, rss = [], [], []
    with tempfile.TemporaryDirectory(prefix="memesh-scale-home-") as home:
        env = {**os.environ, "HOME": home, "MEMESH_DIR": home, "MEMESH_DB_PATH": str(path)}
        env.pop("MEMESH_DATABASE_URL", None)
        for _ in range(runs):
            command = [sys.executable, "-c", _LAUNCHER, str(memesh), "recall", corpus.query(2), "--json"]
            done = subprocess.run(command, env=env, check=True, stdout=subprocess.PIPE, text=True)
            figures = json.loads(done.stdout)
            if figures["code"] != 0:
                raise RuntimeError(f"memesh recall exited with {figures['code']}")
            walls.append(figures["wall"])
            cpus.append(figures["cpu"])
            rss.append(figures["rss_kb"] / 1024)
    return {
        "runs": runs,
        "wall_median_ms": ms(median(walls)),
        "cpu_median_ms": ms(median(cpus)),
        "peak_rss_median_mb": round(median(rss), 1),
        "load_average_1m": os.getloadavg()[0],
    }


def resident() -> dict[str, float]:
    """This process's resident memory now, split (Linux): private memory (RssAnon: the heap, the model) and pages
    of mapped files (RssFile: the database read through its memory map is the OS page cache, shared)."""
    status = Path("/proc/self/status")
    if not status.exists():
        return {}
    fields = dict(line.split(":", 1) for line in status.read_text().splitlines() if ":" in line)
    return {
        f"{name.lower()}_mb": round(int(fields[name].split()[0]) / 1024, 1)
        for name in ("RssAnon", "RssFile")
        if name in fields
    }


def export_and_import(tools: Tools, folder: Path) -> dict[str, Any]:
    """Export every memory through the export tool, then import that bundle through the import tool into an empty
    database (one transaction for the bundle, the bundle validated first): seconds for each."""
    started = time.perf_counter()
    bundle = tools("export", {"limit": EXPORT_LIMIT_MAX})
    export_seconds = time.perf_counter() - started
    target = open_store(folder / "imported.db")
    try:
        started = time.perf_counter()
        imported = Tools(target)("import", {"data": bundle, "merge_strategy": "skip"})
        import_seconds = time.perf_counter() - started
    finally:
        target.close()
    return {
        "export_seconds": round(export_seconds, 2),
        "exported": bundle["entity_count"],
        "import_seconds": round(import_seconds, 2),
        "imported": imported["imported"],
    }


def run(
    count: int,
    seed: int,
    samples: int,
    *,
    profile: bool,
    export: bool = True,
    database: Path | None = None,
    fresh_runs: int = 0,
) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="memesh-scale-") as folder:
        path = Path(folder) / "knowledge-graph.db"
        loaded: dict[str, Any]
        if database is None:
            corpus = Corpus(seed)
            store = open_store(path)
            load_seconds = bulk_load(Tools(store), corpus, count)
            store.close()
            loaded = {"bulk_load_seconds": round(load_seconds, 2), "bulk_load_per_second": round(count / load_seconds)}
        else:
            shutil.copyfile(database, path)  # the given file is never written: remember and recall's touches go here
            store = open_store(path)
            count = store.count()
            store.close()
            corpus = corpus_after(seed, count)
            loaded = {"copied_from": str(database)}
        size = path.stat().st_size
        store = open_store(path)
        try:
            tools = Tools(store)
            fresh = itertools.count(count)
            remember = timed_calls(lambda: tools("remember", corpus.memory(next(fresh))), samples)
            remember_figures = latency(remember) | {"load_average_1m": os.getloadavg()[0]}
            figures: dict[str, Any] = {
                "n": count,
                "db_bytes": size,
                "db_mb": round(size / 1024 / 1024, 1),
                **loaded,
                "remember_single": remember_figures,
                **measure_recall(Tools(store, agent_view=True), corpus, samples),
            }
            figures["content_term_share"] = term_share(store, corpus, count)
            if profile:
                figures["profile"] = profile_recall(store, corpus, samples)
            if export:
                figures.update(export_and_import(tools, Path(folder)))
            figures["resident_at_end"] = resident()
        finally:
            store.close()
        if fresh_runs:
            figures["fresh_process_recall"] = fresh_recalls(path, corpus, fresh_runs)
    figures["peak_rss_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
    return figures


def in_child(count: int, args: argparse.Namespace) -> dict[str, Any]:
    """One --n in its own process, so each peak-memory figure is that run's alone."""
    command = [sys.executable, __file__, "--n", str(count), "--seed", str(args.seed), "--samples", str(args.samples)]
    command += ["--json", *(["--profile"] if args.profile else []), *(["--no-export"] if args.no_export else [])]
    command += ["--fresh-runs", str(args.fresh_runs)]
    done = subprocess.run(command, check=True, capture_output=True, text=True)
    result: dict[str, Any] = json.loads(done.stdout)["runs"][0]
    return result


def print_run(figures: dict[str, Any]) -> None:
    print(f"\nn = {figures['n']:,}")
    print(f"  database on disk     {figures['db_mb']} MB")
    if "copied_from" in figures:
        print(f"  bulk load            none: a copy of {figures['copied_from']}")
    else:
        print(f"  bulk load            {figures['bulk_load_seconds']} s ({figures['bulk_load_per_second']:,}/s)")
    if "export_seconds" in figures:
        print(f"  export (all)         {figures['export_seconds']} s ({figures['exported']:,} memories)")
        print(
            f"  import (that bundle) {figures['import_seconds']} s ({figures['imported']:,} memories, one transaction)"
        )
    print(f"  peak memory (maxrss) {figures['peak_rss_mb']} MB")
    if figures.get("resident_at_end"):
        now = figures["resident_at_end"]
        print(f"  resident at the end  {now['rssanon_mb']} MB private, {now['rssfile_mb']} MB mapped file pages")
    share = figures["content_term_share"]
    print(f"  content query words occur in p10/p50/p90 {share['p10']:.2%} / {share['p50']:.2%} / {share['p90']:.2%}")
    cases = ["remember_single", *recall_cases(Corpus(0)).keys()]
    for case in cases:
        row = figures[case]
        print(
            f"  {case:28} p50 {row['p50_ms']:8.3f} ms   p95 {row['p95_ms']:8.3f} ms   p99 {row['p99_ms']:8.3f} ms"
            f"   CPU p50 {row['cpu_p50_ms']:8.3f} ms   CPU p95 {row['cpu_p95_ms']:8.3f} ms"
            f"   load {row['load_average_1m']:5.2f}"
        )
        if "matched" in row:
            matched = row["matched"]
            spread = f"{matched['p10']:,} / {matched['p50']:,} / {matched['p90']:,}"
            print(f"  {'':28} matched memories p10/p50/p90 {spread}")
    if "fresh_process_recall" in figures:
        fresh = figures["fresh_process_recall"]
        print(
            f"  first recall, fresh process (median of {fresh['runs']}): wall {fresh['wall_median_ms']} ms, "
            f"CPU {fresh['cpu_median_ms']} ms, peak RSS {fresh['peak_rss_median_mb']} MB, "
            f"load {fresh['load_average_1m']:.2f}"
        )
    if "profile" in figures:
        profile = figures["profile"]
        print(f"  profile over {profile['recalls']} recalls (1/2/5 terms), CPU mean {profile['cpu_mean_ms']} ms:")
        for label, value in profile["cpu_ms_per_recall"].items():
            print(f"    {label:22} {value:8.3f} ms")
        print(f"    {'elsewhere':22} {profile['cpu_ms_elsewhere_per_recall']:8.3f} ms")
        print(profile["cprofile_top_by_own_cpu"])


def iter_counts(values: Sequence[int]) -> Iterator[int]:
    yield from dict.fromkeys(values)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--n", type=int, nargs="+", default=[10_000], help="memory counts (default 10000)")
    parser.add_argument("--samples", type=int, default=300, help="timed calls per latency figure (default 300)")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--profile", action="store_true", help="profile recall: store methods vs the rest")
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of a table")
    parser.add_argument("--no-export", action="store_true", help="skip the export and import of everything")
    parser.add_argument(
        "--db",
        type=Path,
        help="measure a copy of this database (seeded with this corpus and --seed) instead of seeding one; n is its "
        "memory count, --n is ignored",
    )
    parser.add_argument(
        "--fresh-runs",
        type=int,
        default=0,
        help="time the first recall in a fresh `memesh recall` process this many times (default 0: not run)",
    )
    args = parser.parse_args(argv)
    counts = list(iter_counts(args.n))
    options = {"profile": args.profile, "export": not args.no_export, "fresh_runs": args.fresh_runs}
    if args.db is not None:
        if not args.db.is_file():
            parser.error(f"--db {args.db}: no such file")
        runs = [run(0, args.seed, args.samples, database=args.db, **options)]
    elif len(counts) == 1:
        runs = [run(counts[0], args.seed, args.samples, **options)]
    else:
        runs = [in_child(count, args) for count in counts]
    target = next((r for r in runs if r["n"] == 100_000), None)
    summary = {
        "recall_p50_ms_at_100k": target["recall_2_terms"]["p50_ms"] if target else None,
        "target_met": (max(target[c]["p50_ms"] for c in TARGET_CASES) <= 5) if target else None,
    }
    if args.json:
        emit_json(
            {"benchmark": "scale", "recall_mode": recall_mode(), "summary": summary, "runs": runs, "machine": machine()}
        )
        return 0
    print("Scale through remember/recall (memesh.app.dispatch.call)")
    print(machine_line())
    print(f"recall mode: {recall_mode()}")
    for figures in runs:
        print_run(figures)
    if target:
        print(f"\ntarget recall p50 <= 5 ms at 100k (1/2/5 terms): {'met' if summary['target_met'] else 'MISSED'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
