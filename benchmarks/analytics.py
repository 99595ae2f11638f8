"""Analytics and the dashboard at scale: GET /v1/analytics, /v1/stats and the other read routes (p50/p99), and the
dashboard's first load to interactive in headless Chromium.

Data: the synthetic memories of scale.py (Zipf vocabulary, 20 projects, 300 topics), stored through remember, then
spread over the last 180 days (created_at) with a third of them recalled in the last 60 days (last_accessed_at,
access_count), so the day and week series have something in every bucket. The spreading is one UPDATE on the
database, not a tool call: no tool sets a creation date.

Measures
- each read route over HTTP, as the dashboard calls it: the ASGI app in-process through httpx (the route table, the
  gate, the handler, the operation and SQLite; no socket), `--samples` calls after one warm-up, p50 and p99.
- first load: `memesh serve` on the database as a process, Chromium (Debian's /usr/bin/chromium through Playwright)
  opening /dashboard until the page marks itself ready (projects, banner and the newest 50 memories drawn), and then
  the Analytics tab until its health score and PM figures are drawn; `--loads` runs, median and max.

Usage: python benchmarks/analytics.py [--n 10000] [--samples 50] [--loads 5] [--no-browser] [--json]
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import anyio
import httpx
from _common import Tools, emit_json, fresh_store, machine, median, ms, percentile
from scale import Corpus, bulk_load

from memesh.transports.http.app import create_app

ROUTES = (
    "/v1/stats",
    "/v1/analytics",
    "/v1/analytics/pm",
    "/v1/projects",
    "/v1/patterns",
)
CHROMIUM = "/usr/bin/chromium"
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--no-first-run"]  # fmt: skip


def spread_in_time(db: Path, count: int) -> None:
    """Creation dates over the last 180 days; a third recalled in the last 60 days."""
    store = fresh_store(db.parent, db.name)
    try:
        with store.transaction():
            store.conn.execute(
                "UPDATE entities SET created_at = datetime('now', '-' || (id * 7919 % 180) || ' days', "
                "'-' || (id * 104729 % 86400) || ' seconds')"
            )
            store.conn.execute(
                "UPDATE entities SET access_count = 1 + id % 5, last_accessed_at = "
                "strftime('%Y-%m-%dT%H:%M:%fZ', 'now', '-' || (id * 31 % 60) || ' days') WHERE id % 3 = 0"
            )
    finally:
        store.close()
    print(f"spread {count} memories over 180 days", file=sys.stderr)


def load(folder: Path, count: int, seed: int) -> tuple[Path, float]:
    db = folder / "knowledge-graph.db"
    store = fresh_store(folder, db.name)
    try:
        seconds = bulk_load(Tools(store), Corpus(seed), count)
    finally:
        store.close()
    spread_in_time(db, count)
    return db, seconds


def measure_routes(db: Path, samples: int) -> dict[str, dict[str, float]]:
    app = create_app(db_path=db, update_fetch=None)
    figures: dict[str, dict[str, float]] = {}

    async def go() -> None:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1:3737") as client:
            for route in ROUTES:
                first = await client.get(route)
                assert first.status_code == 200, first.text
                durations = []
                for _ in range(samples):
                    started = time.perf_counter()
                    response = await client.get(route)
                    durations.append(time.perf_counter() - started)
                    assert response.status_code == 200
                figures[route] = {
                    "p50_ms": ms(percentile(durations, 0.5)),
                    "p99_ms": ms(percentile(durations, 0.99)),
                }

    try:
        anyio.run(go)
    finally:
        app.close()
    return figures


def measure_first_load(db: Path, loads: int) -> dict[str, Any]:
    from playwright.sync_api import sync_playwright

    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMESH_")}
    env.update(MEMESH_DB_PATH=str(db), MEMESH_DIR=str(db.parent), MEMESH_UPDATE_CHECK="0")
    code = "import sys\nfrom memesh.transports.http.serve import serve\nsys.exit(serve(host='127.0.0.1', port=0))"
    # Run from the database folder: from the checkout, the bare memesh/ folder would shadow the installed package.
    server = subprocess.Popen([sys.executable, "-c", code], env=env, cwd=db.parent, stdout=subprocess.PIPE, text=True)
    try:
        assert server.stdout is not None
        found = re.search(r"(http://\S+)", server.stdout.readline())
        assert found, "the server printed no URL"
        url = found.group(1)
        ready, analytics = [], []
        with sync_playwright() as driver:
            browser = driver.chromium.launch(executable_path=CHROMIUM, headless=True, args=FLAGS)
            for _ in range(loads + 1):  # the first load warms the server's connection and caches
                page = browser.new_page()
                started = time.perf_counter()
                page.goto(url + "/dashboard")
                page.wait_for_selector("body[data-ready='true']", timeout=60_000)
                ready.append(time.perf_counter() - started)
                started = time.perf_counter()
                page.click("#tabs button[data-tab='analytics']")
                page.wait_for_selector("#health-score", timeout=60_000)
                page.wait_for_selector("#pm dl", timeout=60_000)
                analytics.append(time.perf_counter() - started)
                page.close()
            browser.close()
        return {
            "first_load_to_interactive_ms": {"median": ms(median(ready[1:])), "max": ms(max(ready[1:]))},
            "analytics_tab_ms": {"median": ms(median(analytics[1:])), "max": ms(max(analytics[1:]))},
            "loads": loads,
        }
    finally:
        server.terminate()
        server.wait(10)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=10_000, help="memories to load (default 10,000)")
    parser.add_argument("--samples", type=int, default=50)
    parser.add_argument("--loads", type=int, default=5)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--no-browser", action="store_true", help="skip the dashboard first-load figure")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="memesh-analytics-") as temp:
        db, seconds = load(Path(temp), args.n, args.seed)
        result: dict[str, Any] = {"n": args.n, "load_seconds": round(seconds, 1), "machine": machine()}
        result["routes"] = measure_routes(db, args.samples)
        if not args.no_browser and Path(CHROMIUM).exists():
            result["dashboard"] = measure_first_load(db, args.loads)
    if args.json:
        emit_json(result)
        return 0
    print(f"{args.n:,} memories (loaded in {result['load_seconds']} s)")
    for route, figure in result["routes"].items():
        print(f"  GET {route:<20} p50 {figure['p50_ms']:8.2f} ms   p99 {figure['p99_ms']:8.2f} ms")
    if "dashboard" in result:
        dash = result["dashboard"]
        print(
            f"  dashboard first load to interactive: median {dash['first_load_to_interactive_ms']['median']:.0f} ms, "
            f"max {dash['first_load_to_interactive_ms']['max']:.0f} ms ({dash['loads']} loads)"
        )
        print(
            f"  analytics tab drawn: median {dash['analytics_tab_ms']['median']:.0f} ms, "
            f"max {dash['analytics_tab_ms']['max']:.0f} ms"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
