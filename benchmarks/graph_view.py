"""The dashboard's graph view at scale: GET /v1/graph and the page's layout and drawing, at 10k memories by default.

    .venv/bin/python benchmarks/graph_view.py [--n 10000] [--browser]

Data (deterministic): N memories stored by remember calls through the one door (batches of 1,000 in one
transaction, as scale.py loads), each related to up to 3 earlier ones chosen with preferential attachment, so a few
hubs have hundreds of relations and most memories one or two, as a real graph grows; 1 in 50 relations is a
`contradicts`, 1 in 50 a `supersedes` (which archives its target). Every tenth memory has no title (as the captured
ones have none).

Measures
- GET /v1/graph over the ASGI app (the route the page calls): the 150 (the page's default) and 500 (its largest
  choice) most connected memories, and the neighbourhood of the biggest hub at depth 2; p50 of 5 runs, the answer's
  size in bytes and its node and edge counts.
- with --browser: the Graph tab in Debian's Chromium (1280x800) at 150 and 500 nodes, from the tab's click to the
  drawing being in the page (the fetch, the force layout and the SVG), p50 of 3 runs.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import anyio
import httpx
from _common import call, emit_json, fresh_store, machine, ms

from memesh.context import CallContext


def load(folder: Path, n: int, seed: int = 7) -> Path:
    """N memories with preferential-attachment relations; returns the database file."""
    rng = random.Random(seed)
    store = fresh_store(folder)
    ctx = CallContext(source_host="bench", agent_view=False)
    ends: list[int] = []  # every relation end so far: picking from it favours the memories with many relations
    for start in range(0, n, 1000):
        with store.transaction():
            for i in range(start, min(n, start + 1000)):
                relations = []
                if i:
                    for _ in range(rng.randint(1, 3)):
                        target = rng.choice(ends) if ends and rng.random() < 0.8 else rng.randrange(i)
                        roll = rng.random()
                        kind = "contradicts" if roll < 0.02 else "supersedes" if roll < 0.04 else "related-to"
                        relations.append({"to": f"m{target}", "type": kind})
                        ends += [target, i]
                body: dict[str, Any] = {"name": f"m{i}", "type": rng.choice(["decision", "fact", "pattern", "lesson"]),
                                        "observations": [f"memory {i} about topic {rng.randrange(300)}"],
                                        "relations": relations}  # fmt: skip
                if i % 10:
                    body["title"] = f"Memory {i}"
                call("remember", store, body, ctx).unwrap()
    store.close()
    return folder / "knowledge-graph.db"


def api_figures(db: Path) -> tuple[dict[str, Any], str]:
    from memesh.transports.http.app import create_app

    app = create_app(db_path=db)

    async def get(path: str) -> httpx.Response:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1:3737") as client:
            return await client.get(path)

    out: dict[str, Any] = {}
    hub = anyio.run(get, "/v1/graph?limit=1").json()["data"]["nodes"][0]["name"]
    for label, path in (("top150", "/v1/graph?limit=150"), ("top500", "/v1/graph?limit=500"),
                        ("hub_depth2", f"/v1/graph?center={hub}&depth=2&limit=150")):  # fmt: skip
        times = []
        for _ in range(5):
            began = time.perf_counter()
            response = anyio.run(get, path)
            times.append(time.perf_counter() - began)
        data = response.json()["data"]
        out[label] = {"p50_ms": ms(statistics.median(times)), "bytes": len(response.content),
                      "nodes": len(data["nodes"]), "edges": len(data["edges"])}  # fmt: skip
    app.close()
    return out, hub


def browser_figures(db: Path) -> dict[str, Any]:
    import os
    import re
    import subprocess

    from playwright.sync_api import sync_playwright

    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMESH_")}
    env.update(HOME=str(db.parent), MEMESH_DIR=str(db.parent), MEMESH_DB_PATH=str(db), MEMESH_UPDATE_CHECK="0")
    code = "import sys\nfrom memesh.transports.http.serve import serve\nsys.exit(serve(host='127.0.0.1', port=0))"
    # cwd: not the checkout, whose bare memesh/ folder would shadow the installed package
    proc = subprocess.Popen([sys.executable, "-c", code], cwd=db.parent, env=env, stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    found = re.match(r"^MeMesh HTTP server running at (http://\S+)$", proc.stdout.readline().strip())
    assert found, "memesh serve did not start"
    out: dict[str, Any] = {}
    try:
        with sync_playwright() as driver:
            browser = driver.chromium.launch(executable_path="/usr/bin/chromium", headless=True, args=["--no-sandbox"])
            page = browser.new_page(viewport={"width": 1280, "height": 800})
            page.goto(found.group(1) + "/dashboard#settings", timeout=60_000)
            page.wait_for_selector("body[data-ready='true']", timeout=60_000)
            for limit in ("150", "500"):
                times = []
                for _ in range(3):
                    page.click("#tabs button[data-tab='settings']")
                    began = time.perf_counter()
                    page.click("#tabs button[data-tab='graph']")
                    if page.input_value("#graph-limit") != limit:
                        page.select_option("#graph-limit", limit)
                    page.locator("#graph-canvas svg .node").nth(int(limit) - 1).wait_for(state="attached")
                    times.append(time.perf_counter() - began)
                out[f"tab_to_drawing_{limit}_p50_ms"] = ms(statistics.median(times))
            browser.close()
    finally:
        proc.terminate()
        proc.wait(10)
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--n", type=int, default=10_000)
    parser.add_argument("--browser", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="memesh-graph-") as folder:
        began = time.perf_counter()
        db = load(Path(folder), args.n)
        figures: dict[str, Any] = {"n": args.n, "load_s": round(time.perf_counter() - began, 1)}
        figures["api"], figures["hub"] = api_figures(db)
        if args.browser:
            figures["browser"] = browser_figures(db)
        emit_json({"machine": machine(), "graph_view": figures})
    return 0


if __name__ == "__main__":
    sys.exit(main())
