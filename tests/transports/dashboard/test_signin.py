"""Signing in to the dashboard of a remote listener (issue 32) as a person does: headless Chromium against `memesh
serve --host 0.0.0.0 --allow-remote` reached on 127.0.0.1, members added with the CLI, on both engines."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.transports.dashboard.conftest import ARTIFACTS, WAIT_MS
from tests.transports.http.test_team_members import ALPHA, BETA, Team, ok, remember, team

__all__ = ["team"]

pytestmark = pytest.mark.browser


class Person:
    """One browser (its own cookies) on the team's dashboard, with every console error it reported."""

    def __init__(self, browser: Any, team: Team) -> None:
        self.context = browser.new_context(viewport={"width": 1280, "height": 860})
        self.page = self.context.new_page()
        self.page.set_default_timeout(WAIT_MS)
        self.url = f"http://127.0.0.1:{team.server.port}"
        self.errors: list[str] = []
        self.page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        self.page.on("pageerror", lambda error: self.errors.append(f"pageerror: {error}"))

    def open(self) -> None:
        self.page.goto(self.url + "/dashboard")
        self.page.wait_for_selector("body[data-ready='true']")

    def sign_in(self, token: str) -> None:
        self.open()
        self.page.wait_for_selector("#signin:not([hidden])")
        self.page.fill("#signin-token", token)
        self.page.click("#signin-submit")
        self.page.wait_for_selector("body[data-signed-in='true'][data-ready='true']")

    def tabs(self) -> list[str]:
        shown: list[str] = self.page.eval_on_selector_all(
            "#tabs button:not([hidden])", "buttons => buttons.map(b => b.dataset.tab)"
        )
        return shown

    def shot(self, name: str) -> None:
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        self.page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)


@pytest.fixture
def people(browser: Any, team: Team) -> Iterator[Any]:
    opened: list[Person] = []

    def person() -> Person:
        opened.append(Person(browser, team))
        return opened[-1]

    yield person
    for one in opened:
        one.context.close()


def test_a_remote_dashboard_asks_for_a_token_and_refuses_a_wrong_one(team: Team, people: Any) -> None:
    me = people()
    me.open()
    me.page.wait_for_selector("#signin:not([hidden])")
    assert me.tabs() == [] or me.page.locator("#tabs").is_hidden()
    me.page.fill("#signin-token", "mm_" + "0" * 64)
    me.page.click("#signin-submit")
    card = me.page.locator("#signin-error [data-error-code='auth.invalid-token']")
    card.wait_for()
    assert me.context.cookies() == []
    me.shot("signin-refused")


def test_a_reader_signs_in_reads_and_is_offered_no_write_forget_or_settings(team: Team, people: Any) -> None:
    bea, carl = team.add("bea", "writer"), team.add("carl", "reader")
    with team.http(bea) as writer:
        ok(remember(writer, "use-postgres"))
    me = people()
    me.sign_in(carl)
    [cookie] = me.context.cookies()
    assert (cookie["name"], cookie["httpOnly"], cookie["sameSite"]) == ("memesh_session", True, "Strict")
    assert carl not in cookie["value"]
    assert "carl (reader)" in me.page.inner_text("#who-name")
    assert me.tabs() == ["memories", "project", "analytics"]
    me.page.locator("#memory-list .memory[data-name='use-postgres']").wait_for()
    me.page.click("#memory-list .memory[data-name='use-postgres']")
    me.page.wait_for_selector("#detail-card")
    assert "bea" in me.page.inner_text("#provenance")
    assert me.page.locator("#forget, #demo-seed, #demo-reset, #settings-save:visible, #accept, #reject").count() == 0
    assert not me.page.evaluate("document.cookie")  # HttpOnly: no script on the page can read the session
    me.shot("signin-reader")
    assert me.errors == []


def test_a_writer_signs_in_and_archives_a_memory_from_the_page(team: Team, people: Any) -> None:
    bea = team.add("bea", "writer")
    with team.http(team.server.token()) as owner:
        ok(remember(owner, "old-plan"))
    me = people()
    me.sign_in(bea)
    me.page.click("#memory-list .memory[data-name='old-plan']")
    me.page.click("#forget")
    me.page.wait_for_selector("#detail-card .badge.archived")
    assert team.rows("SELECT status FROM entities WHERE name = 'old-plan'") == [("archived",)]
    entries = ok(team.http(team.server.token()).get("/v1/audit", params={"actor": "bea"}))["entries"]
    assert [(e["action"], e["target"]) for e in entries] == [("forget", "old-plan")]
    me.shot("signin-writer")
    assert me.errors == []


def test_a_scoped_member_sees_only_its_project(team: Team, people: Any) -> None:
    dana = team.add("dana", "reader", ALPHA)
    with team.http(team.server.token()) as owner:
        ok(remember(owner, "alpha-choice", f"project:{ALPHA}"))
        ok(remember(owner, "beta-choice", f"project:{BETA}"))
    me = people()
    me.sign_in(dana)
    assert me.tabs() == ["memories"]
    me.page.locator("#memory-list .memory[data-name='alpha-choice']").wait_for()
    assert me.page.locator("#memory-list .memory").count() == 1
    chips = me.page.locator("#project-chips .chip")
    assert [chips.nth(i).get_attribute("title") for i in range(chips.count())] == [None, ALPHA]
    assert me.errors == []


def test_a_revoked_member_is_sent_back_to_sign_in_on_the_next_request(team: Team, people: Any) -> None:
    bea = team.add("bea", "writer")
    with team.http(team.server.token()) as owner:
        ok(remember(owner, "kept"))
    me = people()
    me.sign_in(bea)
    assert team.memesh("member", "revoke", "bea").returncode == 0
    me.page.click("#memory-list .memory[data-name='kept']")
    me.page.wait_for_selector("#signin:not([hidden])")
    assert me.context.cookies() == []  # the answer removed the cookie
    me.page.reload()
    me.page.wait_for_selector("#signin:not([hidden])")


def test_sign_out_ends_the_session(team: Team, people: Any) -> None:
    bea = team.add("bea", "writer")
    me = people()
    me.sign_in(bea)
    me.page.click("#sign-out")
    me.page.wait_for_selector("#signin:not([hidden])")
    assert me.context.cookies() == []
    assert me.errors == []


def test_a_page_of_another_site_cannot_write_with_the_signed_in_browser(team: Team, people: Any) -> None:
    bea = team.add("bea", "writer")
    me = people()
    me.sign_in(bea)
    target = f"http://127.0.0.1:{team.server.port}"
    # A page of another site posting a form (no header can be set, SameSite=Strict keeps the cookie home) and
    # calling fetch with credentials (no CORS is granted, and the origin boundary refuses it).
    attack = f"""<html><body>
      <form id="f" method="POST" action="{target}/v1/remember" enctype="text/plain">
        <input name='{{"name":"pwned","observations":["x"],"x":"' value='"}}'></form>
      <script>
        fetch("{target}/v1/remember", {{method: "POST", credentials: "include", mode: "no-cors",
          headers: {{"Content-Type": "text/plain"}},
          body: JSON.stringify({{name: "pwned-fetch", observations: ["x"]}})}})
          .finally(() => document.getElementById("f").submit());
      </script></body></html>"""
    me.page.route("http://evil.example/**", lambda route: route.fulfill(body=attack, content_type="text/html"))
    with me.page.expect_navigation(url=f"{target}/v1/remember"):
        me.page.goto("http://evil.example/")
    assert "auth." in me.page.content()  # the form's answer: refused
    assert team.rows("SELECT count(*) FROM entities") == [(0,)]
