"""SQLite and PostgreSQL side by side: remember and recall latency at 10k / 100k memories, and LoCoMo recall.

Everything goes through memesh.app.dispatch.call, on the same synthetic memories as scale.py (its Corpus: a Zipf
vocabulary, titles, observations, project and topic tags) and the same recall cases, one engine after the other
in one run.

- Load: each memory stored by remember, 1,000 calls per transaction, on both engines; with --copy, PostgreSQL is
  filled instead by `memesh db copy` of the SQLite database (the same rows and ids; quicker at 100k), and the copy
  is timed, then vacuumed and analysed (`settled`). The seeded SQLite file is kept in `--cache` (default
  /tmp/memesh-bench-cache, keyed by seed, count and schema version) and copied from there on the next run.
- remember: single calls on the loaded database, each its own transaction (p50/p95).
- recall: as an agent calls it (agent_view, limit 20): 1-, 2- and 5-term queries of content words, a 2-term query
  with a project filter, a tag listing, a common and a frequent word.
- For each call: wall time, this process's CPU (process_time) and, on PostgreSQL, the CPU of the server process
  serving the connection (/proc/<backend pid>/schedstat, nanoseconds on a CPU; a server on another machine shows
  none). On a shared machine wall times grow with the load, and a server process waiting for a core makes every
  round trip slower; CPU is what the call itself costs. SQLite runs inside this process, so its whole cost is the
  client column; PostgreSQL's is client + server. Before the timed calls of a case, one call is traced (libpq's
  trace) to count its round trips and statements.
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
import os
import shutil
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from _common import Tools, bench_data, emit_json, load_json, machine, machine_line, ms, percentile
from scale import BATCH, Corpus, recall_cases

from memesh.app import dispatch
from memesh.app.operations.database import COPY_DATABASE
from memesh.app.resources import Resources
from memesh.context import CallContext
from memesh.store.migrations import MIGRATIONS
from memesh.store.open import Store, open_store
from memesh.store.postgres import PostgresStore

ENGINES = ("sqlite", "postgres")
DEFAULT_CACHE = Path(tempfile.gettempdir()) / "memesh-bench-cache"


class Samples:
    """Per call: wall seconds, this process's CPU seconds and the server process's CPU seconds (None: not known)."""

    def __init__(self) -> None:
        self.wall: list[float] = []
        self.client: list[float] = []
        self.server: list[float | None] = []

    def figures(self) -> dict[str, float | None]:
        known = [s for s in self.server if s is not None]
        server = known if len(known) == len(self.server) else None
        return {
            "p50_ms": ms(percentile(self.wall, 0.5)),
            "p95_ms": ms(percentile(self.wall, 0.95)),
            "cpu_p50_ms": ms(percentile(self.client, 0.5)),
            "server_cpu_p50_ms": ms(percentile(server, 0.5)) if server else None,
            "total_cpu_p50_ms": ms(percentile([c + s for c, s in zip(self.client, server, strict=True)], 0.5))
            if server
            else None,
        }


def server_cpu(store: Store) -> Callable[[], float | None]:
    """A reader of the CPU seconds the server process behind `store`'s connection has used so far (None on SQLite,
    or when that process is not on this machine or not readable)."""
    if not isinstance(store, PostgresStore):
        return lambda: None
    stat = Path(f"/proc/{store.conn.raw.info.backend_pid}/schedstat")

    def read() -> float | None:
        try:
            return int(stat.read_text().split()[0]) / 1e9
        except (OSError, ValueError, IndexError):
            return None

    return read if read() is not None else (lambda: None)


def timed(call: Callable[[], object], samples: int, server: Callable[[], float | None]) -> Samples:
    """Wall, client CPU and server CPU of each of `samples` calls (the server's read outside the timed span)."""
    out = Samples()
    for _ in range(samples):
        before = server()
        started, cpu_started = time.perf_counter(), time.process_time()
        call()
        cpu = time.process_time() - cpu_started
        out.wall.append(time.perf_counter() - started)
        out.client.append(cpu)
        after = server()
        out.server.append(after - before if after is not None and before is not None else None)
    return out


def round_trips(store: Store, call: Callable[[], object]) -> dict[str, int] | None:
    """How many round trips (answers waited for: the client sent, then read) and statements one call makes on
    PostgreSQL (libpq's trace)."""
    if not isinstance(store, PostgresStore):
        return None
    pgconn = store.conn.raw.pgconn
    with tempfile.TemporaryFile() as trace:
        pgconn.trace(trace.fileno())
        try:
            call()
        finally:
            pgconn.untrace()
        trace.seek(0)
        lines = trace.read().decode("utf-8", "replace").splitlines()
    waits = statements = 0
    last = ""
    for line in lines:
        fields = line.split("\t")
        if len(fields) < 4:
            continue
        direction, message = fields[1], fields[3]
        if direction == "B" and last == "F":  # the client sent, then read: it waited for an answer
            waits += 1
        last = direction
        if direction == "F" and message == "Bind":
            statements += 1
        elif direction == "F" and message == "Query":
            text = fields[4] if len(fields) > 4 else ""
            statements += max(1, len([part for part in text.strip().strip('"').split(";") if part.strip()]))
    return {"round_trips": waits, "statements": statements}


@contextlib.contextmanager
def postgres_server(url: str | None, settings: Sequence[str] = ()) -> Iterator[Callable[[], str]]:
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
        cluster = tools.Cluster(bindir, template=False, settings=settings)
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
    server = server_cpu(store)
    cases = {"remember_single": functools.partial(_call, tools, "remember", lambda: corpus.memory(next(fresh)))}
    cases |= {
        case: functools.partial(_call, agent, "recall", arguments) for case, arguments in recall_cases(corpus).items()
    }
    out: dict[str, Any] = {}
    for case, call in cases.items():
        for _ in range(20):  # warm caches and prepared statements; not measured
            call()
        traced = round_trips(store, call)
        out[case] = timed(call, samples, server).figures() | (traced or {})
    return out


def settled(url: str) -> None:
    """VACUUM ANALYZE of the freshly filled PostgreSQL database: what autovacuum does on its own a minute or two
    after a bulk load. Without it the first minutes measure a planner with no statistics of the new rows (it hashed
    every memory to join a few hundred matches) and counter tables full of the load's dead rows, not the steady
    state a team's server runs in."""
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("VACUUM ANALYZE")


def seeded(path: Path, count: int, args: argparse.Namespace) -> float | None:
    """A SQLite database of `count` memories at `path`: copied from the cache when it holds one, else loaded
    through remember (and kept in the cache). Returns the seconds the load took, or None when it came from the
    cache."""
    cache: Path | None = args.cache
    name = f"pg_vs_sqlite-seed{args.seed}-n{count}-schema{MIGRATIONS[-1][0]}.db"
    if cache is not None and (cache / name).is_file():
        shutil.copyfile(cache / name, path)
        return None
    store = open_store(path)
    try:
        seconds = load(store, Corpus(args.seed), count)
    finally:
        store.close()
    if cache is not None:
        cache.mkdir(parents=True, exist_ok=True)
        partial = cache / f"{name}.{os.getpid()}.partial"
        shutil.copyfile(path, partial)
        partial.replace(cache / name)  # whole or not at all, should two runs seed at once
    return seconds


def run_scale(count: int, args: argparse.Namespace, new_database: Callable[[], str]) -> dict[str, Any]:
    result: dict[str, Any] = {"n": count}
    with tempfile.TemporaryDirectory(prefix="memesh-pg-vs-sqlite-") as folder:
        path = Path(folder) / "knowledge-graph.db"
        url = new_database()
        seconds = seeded(path, count, args)
        result["sqlite_load_seconds"] = None if seconds is None else round(seconds, 2)
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
        settled(url)
        for engine, target in (("sqlite", path), ("postgres", url)):
            store = open_store(target)
            try:
                started = os.getloadavg()[0]
                result[engine] = measure(store, corpus_after(args.seed, count), count, args.samples)
                result[f"{engine}_load_average"] = [round(started, 1), round(os.getloadavg()[0], 1)]
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
    # Over the distinct sessions of each top 5 (two memories of one session name it twice).
    overlap = [
        len(set(a["returned_sessions"][:5]) & set(b["returned_sessions"][:5]))
        / max(1, len(set(a["returned_sessions"][:5])))
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


def _ms(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


def _ratio(a: float | None, b: float | None) -> str:
    return "-" if not a or b is None else f"{b / a:.2f}x"


def print_scale(run: dict[str, Any]) -> None:
    print(f"\nn = {run['n']:,}")
    sqlite = "from the cache" if run["sqlite_load_seconds"] is None else f"{run['sqlite_load_seconds']} s"
    if "postgres_copy_seconds" in run:
        print(f"  load: SQLite {sqlite} through remember; PostgreSQL {run['postgres_copy_seconds']} s by db copy")
    else:
        print(f"  load through remember: SQLite {sqlite}, PostgreSQL {run['postgres_load_seconds']} s")
    a, b = run["sqlite_load_average"], run["postgres_load_average"]
    print(f"  load average while measured (1 min, start-end): SQLite {a[0]}-{a[1]}, PostgreSQL {b[0]}-{b[1]}")
    print(
        "  ms per call, p50 (PG CPU = client + server; RT/st = PostgreSQL round trips / statements of one call)\n"
        f"  {'':27}{'--------- wall ---------':>26}{'---------------- CPU ----------------':>40}\n"
        f"  {'':27}{'SQLite':>8}{'PG':>8}{'ratio':>8}  {'SQLite':>8}{'PG cli':>8}{'PG srv':>8}{'PG':>8}{'ratio':>8}"
        f"{'RT/st':>8}"
    )
    for case in run["sqlite"]:
        a, b = run["sqlite"][case], run["postgres"][case]
        trips = f"{b['round_trips']}/{b['statements']}" if "round_trips" in b else "-"
        print(
            f"  {case:27}{a['p50_ms']:8.2f}{b['p50_ms']:8.2f}{_ratio(a['p50_ms'], b['p50_ms']):>8}  "
            f"{a['cpu_p50_ms']:8.2f}{b['cpu_p50_ms']:8.2f}{_ms(b['server_cpu_p50_ms']):>8}"
            f"{_ms(b['total_cpu_p50_ms']):>8}{_ratio(a['cpu_p50_ms'], b['total_cpu_p50_ms']):>8}{trips:>8}"
        )


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
    parser.add_argument(
        "--cache",
        type=Path,
        default=DEFAULT_CACHE,
        help=f"folder keeping the seeded SQLite databases between runs (default {DEFAULT_CACHE})",
    )
    parser.add_argument("--no-cache", dest="cache", action="store_const", const=None, help="seed every time")
    parser.add_argument(
        "--pg-setting",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a server setting of the throwaway cluster (repeatable), e.g. shared_buffers=512MB (default 128MB)",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of tables")
    args = parser.parse_args(argv)
    if not args.json:
        print("SQLite and PostgreSQL through remember/recall (memesh.app.dispatch.call)")
        print(machine_line(), flush=True)
        settings = ", ".join(args.pg_setting) or "none (shared_buffers=128MB)"
        print(f"PostgreSQL settings beyond tools/pg_cluster.py's: {settings}", flush=True)
    runs = []
    with postgres_server(args.url, args.pg_setting) as new_database:
        for count in args.n:
            if count:
                runs.append(run_scale(count, args, new_database))
                if not args.json:  # each count's table as soon as it is measured: a 100k run takes a while
                    print_scale(runs[-1])
                    sys.stdout.flush()
        locomo_figures = run_locomo(args, new_database) if args.locomo else None
    if args.json:
        emit_json(
            {
                "benchmark": "pg_vs_sqlite",
                "pg_settings": args.pg_setting,
                "runs": runs,
                "locomo": locomo_figures,
                "machine": machine(),
            }
        )
        return 0
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
