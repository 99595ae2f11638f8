"""The dashboard in a real browser: `memesh serve` as a process on a free port, Debian's Chromium driven by
Playwright (never a browser Playwright downloads), console errors collected, and a screenshot of every test kept in
test-artifacts/dashboard/ (gitignored)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import playwright.sync_api as playwright_sync
import pytest

from memesh.store.open import Store
from tests.backends import Backend

CHROMIUM = Path("/usr/bin/chromium")
ARTIFACTS = Path(__file__).resolve().parents[3] / "test-artifacts" / "dashboard"
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
]
RUNNING = re.compile(r"^MeMesh HTTP server running at (http://[^ ]+)$")
WAIT_MS = 15_000

if not CHROMIUM.exists():
    pytest.skip("no /usr/bin/chromium: `make test` installs it (apt-get install -y chromium)", allow_module_level=True)


@dataclass
class Server:
    """A running `memesh serve` with its own folder and database (the file `db`, or on PostgreSQL the test's
    database for it)."""

    url: str
    dashboard_line: str
    home: Path
    db: Path
    proc: subprocess.Popen[str]
    backend: Backend

    def store(self) -> Store:
        """The server's database, opened beside it (to seed what no route writes)."""
        return self.backend.open(self.db)

    def api(self, method: str, path: str, **kwargs: Any) -> httpx.Response:
        with httpx.Client(base_url=self.url, timeout=30) as client:
            return client.request(method, path, **kwargs)

    def ok(self, method: str, path: str, **kwargs: Any) -> Any:
        response = self.api(method, path, **kwargs)
        assert response.status_code == 200, response.text
        return response.json()["data"]


@pytest.fixture
def server(tmp_path: Path, backend: Backend) -> Iterator[Server]:
    home = tmp_path / "home"
    env = {k: v for k, v in os.environ.items() if (not k.startswith("MEMESH_") or k == "MEMESH_DAEMON")}
    db = home / ".memesh" / "knowledge-graph.db"
    env.update(HOME=str(home), MEMESH_DIR=str(home / ".memesh"), MEMESH_DB_PATH=str(db), MEMESH_UPDATE_CHECK="0")
    env.update(backend.environ(db))
    code = "import sys\nfrom memesh.transports.http.serve import serve\nsys.exit(serve(host='127.0.0.1', port=0))"
    proc = subprocess.Popen(
        [sys.executable, "-c", code], cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    assert proc.stdout is not None
    first = proc.stdout.readline().strip()
    found = RUNNING.match(first)
    assert found, (first, proc.stderr.read() if proc.poll() is not None and proc.stderr else "")
    running = Server(found.group(1), proc.stdout.readline().strip(), home, db, proc, backend)
    for _ in range(200):  # the listener is bound before the line is printed; the worker may take a moment
        try:
            if running.api("GET", "/v1/health").status_code == 200:
                break
        except httpx.TransportError:
            pass
    yield running
    proc.terminate()
    try:
        proc.wait(10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


@pytest.fixture
def browser() -> Iterator[Any]:
    # Per test, not per session: while Playwright's sync driver is alive it keeps an asyncio loop running on this
    # thread, and every other test that later runs on the same worker (anyio.run, the MCP client) would fail.
    with playwright_sync.sync_playwright() as driver:
        launched = driver.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=FLAGS)
        yield launched
        launched.close()


@dataclass
class Tab:
    """One page, with everything it reported to the console."""

    page: Any
    server: Server
    errors: list[str]
    requests: list[str]

    def open(self, tab: str | None = None) -> None:
        self.page.goto(self.server.url + "/dashboard" + (f"#{tab}" if tab else ""))
        self.page.wait_for_selector("body[data-ready='true']", timeout=WAIT_MS)

    def tab(self, name: str) -> None:
        self.page.click(f"#tabs button[data-tab='{name}']")

    def shot(self, name: str) -> Path:
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        path = ARTIFACTS / f"{name}.png"
        self.page.screenshot(path=str(path), full_page=True)
        return path


@pytest.fixture
def tab(browser: Any, server: Server, request: pytest.FixtureRequest) -> Iterator[Tab]:
    context = browser.new_context(viewport={"width": 1280, "height": 860})
    page = context.new_page()
    page.set_default_timeout(WAIT_MS)
    opened = Tab(page, server, [], [])
    page.on("console", lambda message: opened.errors.append(message.text) if message.type == "error" else None)
    page.on("pageerror", lambda error: opened.errors.append(f"pageerror: {error}"))
    page.on("request", lambda req: opened.requests.append(f"{req.method} {req.url}"))
    yield opened
    try:
        opened.shot(request.node.name)
    finally:
        context.close()
