"""The real Claude Code (pinned in tools/claude-code, installed by `make claude-code`) connects to a remote `memesh
serve` by OAuth alone: `claude mcp add --transport http memesh <url>` with no header, `claude mcp login memesh`
(which registers a client and opens the authorization URL — here through BROWSER, a script that records it), the
approval page completed in Chromium with a member's token, and then a session with the MeMesh tools writes as that
member.

What 2.1.332 was seen to do: `claude mcp list` says "Needs authentication" after the 401 and the metadata; `claude
mcp login` needs a terminal (here a pseudo-terminal), registers with a `http://localhost:<port>/callback` redirect,
calls BROWSER with the URL, and waits on that port; after the code reaches it, it says "Authenticated" and `claude
mcp list` says "Connected".
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.transports.hooks.stand_in_api import Reply as Say
from tests.transports.hooks.stand_in_api import StandIn, serving, text, tool_use
from tests.transports.http.oauth_flow import Team, team

__all__ = ["team"]

pytestmark = [pytest.mark.node, pytest.mark.browser, pytest.mark.one_engine("Claude Code's flow, not the store")]

REPO = Path(__file__).resolve().parents[3]
CLAUDE = REPO / "tools" / "claude-code" / "node_modules" / ".bin" / "claude"
CHROMIUM = Path("/usr/bin/chromium")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--no-first-run"]
RUN_SECONDS = 120


class ClaudeCode:
    """Claude Code with its own HOME and config folder, and a BROWSER that records the URL it is asked to open."""

    def __init__(self, root: Path) -> None:
        self.home = root / "claude-home"
        (self.home / ".claude").mkdir(parents=True)
        self.opened = root / "opened.txt"
        browser = root / "browser.sh"
        browser.write_text(f'#!/bin/sh\necho "$1" >> {self.opened}\n')
        browser.chmod(0o755)
        self.env = {
            "MEMESH_DAEMON": "0",
            "PATH": f"{Path(sys.executable).parent}{os.pathsep}/usr/bin:/bin",
            "HOME": str(self.home),
            "CLAUDE_CONFIG_DIR": str(self.home / ".claude"),
            "BROWSER": str(browser),
            "ANTHROPIC_API_KEY": "sk-ant-stand-in",
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
            "DISABLE_AUTOUPDATER": "1",
            "DISABLE_TELEMETRY": "1",
            "DISABLE_ERROR_REPORTING": "1",
        }
        self.cwd = root

    def run(self, *argv: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(CLAUDE), *argv],
            env={**self.env, **(env or {})},
            cwd=self.cwd,
            capture_output=True,
            text=True,
            timeout=RUN_SECONDS,
            stdin=subprocess.DEVNULL,
            check=False,
        )

    def login(self, name: str) -> Login:
        return Login(self, name)

    def authorization_url(self) -> str:
        deadline = time.monotonic() + RUN_SECONDS
        while time.monotonic() < deadline:
            if self.opened.exists() and self.opened.read_text().strip():
                return self.opened.read_text().split()[0]
            time.sleep(0.2)
        raise AssertionError("Claude Code never asked for a browser")


class Login:
    """`claude mcp login NAME` in a pseudo-terminal (it refuses to run without one), its output kept."""

    def __init__(self, claude: ClaudeCode, name: str) -> None:
        import pty

        main, side = pty.openpty()
        self.proc = subprocess.Popen(
            [str(CLAUDE), "mcp", "login", name],
            env={**claude.env, "TERM": "dumb"},
            cwd=claude.cwd,
            stdin=side,
            stdout=side,
            stderr=side,
            close_fds=True,
        )
        os.close(side)
        self._main = main
        self.output = b""
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        while True:
            try:
                chunk = os.read(self._main, 4096)
            except OSError:
                return
            if not chunk:
                return
            self.output += chunk

    def wait(self) -> tuple[int, str]:
        try:
            code = self.proc.wait(timeout=RUN_SECONDS)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait()
            self._reader.join(timeout=5)
            os.close(self._main)
        return code, self.output.decode("utf-8", "replace")


@pytest.fixture
def claude(tmp_path: Path) -> Iterator[ClaudeCode]:
    if not CLAUDE.exists():
        pytest.fail(f"Claude Code's CLI is not installed at {CLAUDE}: run `make claude-code`")
    if not CHROMIUM.exists():
        pytest.fail("no /usr/bin/chromium: `make test` installs it (apt-get install -y chromium)")
    yield ClaudeCode(tmp_path)


def approve_in_chromium(url: str, token: str) -> tuple[str, str, str]:
    """Open the authorization URL in Chromium, enter the token, approve: (what the page showed before approval,
    where the browser landed, what it showed there)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as driver:
        browser = driver.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=FLAGS)
        try:
            page = browser.new_page()
            page.goto(url)
            page.fill("input[name=token]", token)
            page.click("button[value=identify]")
            shown = page.inner_text("body")
            page.click("button[value=approve]")
            page.wait_for_url("**/callback?**")
            page.wait_for_load_state()
            return shown, page.url, page.inner_text("body")
        finally:
            browser.close()


def test_claude_code_connects_by_oauth_after_the_approval_page_and_its_session_has_the_memesh_tools(
    team: Team, claude: ClaudeCode
) -> None:
    bea = team.add("bea", "writer")
    added = claude.run("mcp", "add", "--transport", "http", "memesh", f"{team.base}/mcp")
    assert added.returncode == 0, added.stderr
    before = claude.run("mcp", "list")
    assert "memesh" in before.stdout and "Needs authentication" in before.stdout, before.stdout + before.stderr

    login = claude.login("memesh")
    url = claude.authorization_url()
    assert url.startswith(f"{team.base}/authorize?") and "code_challenge_method=S256" in url
    shown, landed, landing = approve_in_chromium(url, bea)
    assert "Claude Code" in shown and "bea" in shown and "writer" in shown
    assert landed.startswith("http://localhost:") and "code=mmoc_" in landed
    code, output = login.wait()
    assert code == 0, output
    assert "Authentication successful" in landing or "Authenticated" in output
    [(registered,)] = team.rows("SELECT metadata FROM oauth_clients")
    assert json.loads(registered)["token_endpoint_auth_method"] == "none"  # a public client: PKCE, no secret

    after = claude.run("mcp", "list")
    assert "Connected" in after.stdout, after.stdout + after.stderr

    note = {"name": "claude-code-oauth", "type": "decision", "observations": ["connected by OAuth"],
            "namespace": "team"}  # fmt: skip
    script = [Say([tool_use("toolu_1", "mcp__memesh__remember", note)]), Say([text("Remembered.")])]
    with serving(StandIn(script)) as api:
        done = claude.run(
            "-p", "remember that we connected by OAuth", "--output-format", "stream-json", "--verbose",
            "--allowedTools", "mcp__memesh__remember",
            env={"ANTHROPIC_BASE_URL": api.url},
        )  # fmt: skip
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    events: list[dict[str, Any]] = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    [init] = [event for event in events if event.get("type") == "system" and event.get("subtype") == "init"]
    assert {"mcp__memesh__remember", "mcp__memesh__recall"} <= set(init["tools"])
    assert [(server["name"], server["status"]) for server in init["mcp_servers"]] == [("memesh", "connected")]
    result = api.turns[1].tool_result("toolu_1")
    assert result.get("is_error") is not True, result
    assert team.rows("SELECT author FROM entities WHERE name = 'claude-code-oauth'") == [("bea",)]
