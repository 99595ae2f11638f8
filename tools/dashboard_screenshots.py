"""Remake the dashboard screenshots in docs/screenshots/: one PNG per tab, from a throwaway memory.

    .venv/bin/python tools/dashboard_screenshots.py [--out docs/screenshots] [--chromium /usr/bin/chromium]

Starts `memesh serve` on a free port with its own HOME (never ~/.memesh), fills it with the demo tour plus a few
memories that show what the views are for (a contradiction, a superseded decision, auto-captured session memories,
a corrected memory with history, a project's task state), and drives Debian's Chromium through Playwright (never a
browser Playwright downloads: `make browser`). The viewport is fixed and the graph layout is seeded by name, so a
rerun gives the same pictures apart from dates.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parents[1]
RUNNING = re.compile(r"^MeMesh HTTP server running at (http://[^ ]+)$")
PROJECT = "memesh-demo"
SHOP = "shop~c566806a3f1e4b0d9a2c7e5b1d0f8a64"  # a project id as the hooks write it: the page shows its label
SEARCH = "access tokens"  # two of the results contradict each other: the search shows the conflict
WIDTH, HEIGHT = 1280, 800
TABS = ("memories", "graph", "project", "analytics", "review", "doctor", "settings")  # and memory.png: one page


def _post(client: httpx.Client, path: str, body: dict[str, Any]) -> None:
    response = client.post(path, json=body)
    response.raise_for_status()


def seed(client: httpx.Client, env: dict[str, str]) -> None:
    """The demo tour and the memories that make each view worth a picture."""
    _post(client, "/v1/demo/seed", {})
    tag = [f"project:{PROJECT}"]
    memories: list[dict[str, Any]] = [
        {
            "name": "token-lifetime-15m",
            "type": "decision",
            "title": "Access tokens live 15 minutes",
            "observations": ["Short enough that a leaked token is worth little."],
            "tags": tag,
            "relations": [{"to": "demo-auth-decision", "type": "builds-on"}],
        },
        {
            "name": "token-lifetime-1h",
            "type": "decision",
            "title": "Access tokens live one hour",
            "observations": ["The mobile client refreshes too often with 15 minutes."],
            "tags": tag,
            "relations": [{"to": "token-lifetime-15m", "type": "contradicts"}],
        },
        {
            "name": "sessions-in-local-storage",
            "type": "decision",
            "title": "Sessions live in localStorage",
            "observations": ["Simple, but page script can read the token."],
            "tags": tag,
        },
        {
            "name": "demo-session-storage",
            "type": "decision",
            "relations": [{"to": "sessions-in-local-storage", "type": "supersedes"}],
            "observations": ["Replaces the localStorage decision after the XSS review."],
        },
        {
            "name": "session-6f1c2a9e-4b7d-4c1e-9a55-0d3e8b7f21aa-summary",
            "type": "session-insight",
            "observations": [
                "Session in memesh-demo: 23 tool calls (Edit 9, Bash 8, Read 6); 1 failed; 4 files edited"
            ],
            "tags": tag,
            "relations": [{"to": "demo-commit-pkce", "type": "related-to"}],
        },
        {
            "name": "session-6f1c2a9e-4b7d-4c1e-9a55-0d3e8b7f21aa-files",
            "type": "session-insight",
            "observations": ["Edited src/auth/login.ts", "Edited src/auth/refresh.ts"],
            "tags": tag,
            "relations": [{"to": "session-6f1c2a9e-4b7d-4c1e-9a55-0d3e8b7f21aa-summary", "type": "part-of"}],
        },
    ]
    memories.append(
        {
            "name": f"session-handoff:{SHOP}",
            "type": "session-handoff",
            "title": f"Session handoff for {SHOP}",
            "observations": ["Checkout retries are in; next: the refund webhook."],
            "tags": [f"project:{SHOP}"],
        }
    )
    for memory in memories:
        _post(client, "/v1/remember", memory)
    _post(
        client,
        "/v1/remember",
        {
            "name": "demo-retry-pattern",
            "replace": True,
            "observations": ["Applies to the payment provider, the mail relay and the webhook sender."],
        },
    )
    subprocess.run(
        [str(Path(sys.executable).parent / "memesh"), "task", "--project", PROJECT, "--goal",
         "Ship passkeys to staff", "--next", "Enable the flag for the staff group", "--blocked",
         "Security review of the recovery flow", "--done", "PKCE login and rotating refresh tokens"],
        env=env, check=True, capture_output=True,
    )  # fmt: skip


def shoot(url: str, out: Path, chromium: Path) -> list[Path]:
    from playwright.sync_api import sync_playwright

    out.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    with sync_playwright() as driver:
        browser = driver.chromium.launch(executable_path=str(chromium), headless=True, args=["--no-sandbox"])
        page = browser.new_page(viewport={"width": WIDTH, "height": HEIGHT})
        errors: list[str] = []
        page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
        for tab in TABS:
            shot = tab
            page.goto(f"{url}/dashboard#{tab}")
            page.wait_for_selector("body[data-ready='true']")
            page.wait_for_load_state("networkidle")
            if tab == "memories":  # a search that finds a conflict, then one memory's page (history, relations)
                page.wait_for_selector("#memory-list .memory")
                page.fill("#search", SEARCH)
                page.click("#search-form button[type=submit]")
                page.wait_for_selector("#search-conflicts")
                page.click("#memory-list .memory[data-name='token-lifetime-15m']")
                page.wait_for_selector("#detail-card #memory-conflicts-of")
                page.wait_for_load_state("networkidle")
                written.append(out / "memories.png")
                page.screenshot(path=str(written[-1]))
                page.fill("#search", "")
                page.click("#search-form button[type=submit]")
                page.wait_for_selector("#memory-list .memory[data-name='demo-retry-pattern']")
                page.click("#memory-list .memory[data-name='demo-retry-pattern']")
                page.wait_for_selector("#detail-card #provenance")
                shot = "memory"
            if tab == "graph":
                page.wait_for_selector("#graph-canvas svg .node")
                page.click("#graph-canvas svg .node[data-name='demo-auth-decision'] circle")
                page.wait_for_selector("#graph-detail #detail-card")
            ready = {"project": "#index-table", "analytics": "#age table", "review": "#proposal-list .card",
                     "doctor": "#doctor .doctor-check", "settings": "#update-status dl"}  # fmt: skip
            if tab in ready:
                page.wait_for_selector(ready[tab])
            page.wait_for_load_state("networkidle")
            path = out / f"{shot}.png"
            page.screenshot(path=str(path))
            written.append(path)
        browser.close()
    if errors:
        raise SystemExit(f"the dashboard logged console errors: {errors}")
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "screenshots")
    parser.add_argument("--chromium", type=Path, default=Path("/usr/bin/chromium"))
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="memesh-shots-") as folder:
        home = Path(folder)
        env = {k: v for k, v in os.environ.items() if not k.startswith("MEMESH_")}
        env.update(HOME=str(home), MEMESH_DIR=str(home / ".memesh"), MEMESH_UPDATE_CHECK="0",
                   MEMESH_DB_PATH=str(home / ".memesh" / "knowledge-graph.db"))  # fmt: skip
        code = "import sys\nfrom memesh.transports.http.serve import serve\nsys.exit(serve(host='127.0.0.1', port=0))"
        proc = subprocess.Popen(
            [sys.executable, "-c", code], cwd=folder, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        try:
            assert proc.stdout is not None
            found = RUNNING.match(proc.stdout.readline().strip())
            if not found:
                raise SystemExit("memesh serve did not start")
            url = found.group(1)
            with httpx.Client(base_url=url, timeout=30) as client:
                for _ in range(200):
                    try:
                        if client.get("/v1/health").status_code == 200:
                            break
                    except httpx.TransportError:
                        pass
                seed(client, env)
            for path in shoot(url, args.out, args.chromium):
                print(f"{path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}  {path.stat().st_size:,} bytes")
        finally:
            proc.terminate()
            proc.wait(10)
    return 0


if __name__ == "__main__":
    sys.exit(main())
