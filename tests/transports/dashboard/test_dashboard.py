"""The dashboard as a person uses it, in headless Chromium against a real `memesh serve`."""

from __future__ import annotations

import json
import time
from typing import TYPE_CHECKING, Any

import pytest

pytestmark = pytest.mark.browser

if TYPE_CHECKING:
    from tests.transports.dashboard.conftest import Server, Tab

LONG = "A long observation. " * 60  # 1200 characters: the page shows 300 until asked


def remember(server: Server, **body: Any) -> None:
    server.ok("POST", "/v1/remember", json=body)


@pytest.mark.one_engine("the line serve prints: no store is read")
def test_serve_prints_the_dashboard_url(server: Server) -> None:
    assert server.dashboard_line == f"MeMesh dashboard: {server.url}/dashboard"


def test_the_main_views_load_without_a_console_error(tab: Tab) -> None:
    tab.server.ok("POST", "/v1/demo/seed")
    tab.open()
    assert tab.page.locator("#memory-list .memory").count() == 12
    tab.shot("memories")
    for name in ("analytics", "settings", "memories"):
        tab.tab(name)
        tab.page.wait_for_load_state("networkidle")
    assert tab.page.locator("#health-score").inner_text().isdigit()
    assert tab.errors == []


def test_an_empty_memory_offers_the_demo_tour_and_removes_it_again(tab: Tab) -> None:
    tab.open()
    tab.page.click("#demo-seed")
    tab.page.wait_for_selector("#demo-reset")
    # The banner turns before the list is fetched again: wait for the list the seed produced, not only the banner.
    # (A locator, not wait_for_function: the page's CSP forbids the eval a string predicate polls with.)
    tab.page.locator("#memory-list .memory").nth(11).wait_for()
    assert tab.page.locator("#memory-list .memory").count() == 12
    tab.page.click("#demo-reset")
    tab.page.wait_for_selector("#demo-seed")
    assert tab.server.ok("GET", "/v1/health")["entity_count"] == 0
    assert tab.errors == []


def test_search_finds_a_memory_and_opening_it_shows_relations_history_and_full_text(tab: Tab) -> None:
    remember(tab.server, name="jwt-choice", type="decision", observations=["We chose JWT"])
    remember(
        tab.server,
        name="auth-flow",
        type="decision",
        title="Use PKCE for the public client",
        observations=[LONG.strip()],
        relations=[{"to": "jwt-choice", "type": "related-to"}],
    )
    remember(tab.server, name="auth-flow", replace=True, observations=[LONG.strip(), "PKCE, not implicit"])
    remember(tab.server, name="unrelated", type="fact", observations=["Lunch is at noon"])
    tab.open()
    tab.page.fill("#search", "PKCE")
    tab.page.click("#search-form button[type=submit]")
    tab.page.wait_for_selector("#memory-list .memory[data-name='auth-flow']")
    assert tab.page.locator("#memory-list .memory").count() == 1
    tab.page.click("#memory-list .memory[data-name='auth-flow']")
    detail = tab.page.locator("#detail-card")
    detail.wait_for()
    assert "Use PKCE for the public client" in detail.locator("h2").inner_text()
    first = detail.locator(".obs").first
    assert len(first.inner_text()) <= 301
    detail.get_by_text("Show full text").click()
    assert first.inner_text() == LONG.strip()
    assert "jwt-choice" in detail.inner_text()
    assert "History (1 earlier version)" in detail.inner_text()
    tab.shot("memory-detail")
    detail.get_by_role("button", name="jwt-choice").click()
    tab.page.wait_for_selector("#detail-card h2:has-text('jwt-choice')")
    assert tab.errors == []


@pytest.mark.one_engine("the page's escaping")
def test_a_memory_holding_markup_is_shown_as_text_and_runs_nothing(tab: Tab) -> None:
    hostile = "<img src=x onerror=\"window.__pwned='img'\"><script>window.__pwned='script'</script>"
    remember(
        tab.server,
        name="xss-probe",
        type="note",
        title='<svg onload="window.__pwned=1">',
        observations=[hostile, '<a href="javascript:window.__pwned=2">click</a>'],
        tags=["<b onmouseover=window.__pwned=3>tag</b>"],
    )
    tab.open()
    tab.page.click("#memory-list .memory[data-name='xss-probe']")
    tab.page.wait_for_selector("#detail-card")
    tab.page.hover("#detail-card .badge >> nth=-1")
    assert tab.page.evaluate("window.__pwned === undefined")
    assert tab.page.locator("#detail-card img, #detail-card script, #detail-card svg, #detail-card a").count() == 0
    assert hostile in tab.page.locator("#detail-card").inner_text()
    assert tab.errors == []


def _readback_after_save(tab: Tab, seconds: float = 20.0) -> dict[str, Any]:
    """The settings read-back once it shows the saved sessionLimit (or what it shows when `seconds` have passed)."""
    deadline = time.monotonic() + seconds
    while True:
        text = tab.page.locator("#settings-readback").inner_text()
        try:
            shown: dict[str, Any] = json.loads(text)
        except ValueError:
            shown = {}
        if shown.get("sessionLimit") == 42 or time.monotonic() > deadline:
            return shown
        tab.page.wait_for_timeout(100)


def _settings_read(tab: Tab) -> None:
    """The Settings tab once it has filled its fields from GET /v1/config (which would overwrite a value typed before
    it lands)."""
    tab.page.wait_for_selector("#capture-source:not(:empty)")


@pytest.mark.one_engine("config.json, a local file on either engine")
def test_a_setting_round_trips_through_post_config(tab: Tab) -> None:
    tab.open("settings")
    _settings_read(tab)
    tab.page.fill("#set-sessionLimit", "42")
    tab.page.select_option("#set-briefing", "standard")
    tab.page.click("#settings-save")
    tab.page.wait_for_selector("#settings-saved")
    # The read-back is the GET /v1/config that follows the save: under load it lands a moment after the banner (and
    # until then shows the config read when the tab opened).
    assert _readback_after_save(tab).get("sessionLimit") == 42
    assert tab.server.ok("GET", "/v1/config")["config"]["sessionLimit"] == 42
    tab.page.reload()
    tab.page.wait_for_selector("body[data-ready='true']")
    # The settings tab fills its fields from GET /v1/config after the page marks itself ready: wait for that read.
    tab.page.wait_for_function("document.querySelector('#set-sessionLimit').value !== ''")
    assert tab.page.input_value("#set-sessionLimit") == "42"
    tab.shot("settings")
    assert tab.errors == []


@pytest.mark.one_engine("refused by the gate before any store is read")
def test_a_refused_setting_is_a_readable_message_not_a_code(tab: Tab) -> None:
    tab.open("settings")
    _settings_read(tab)
    tab.page.fill("#set-sessionLimit", "500")
    tab.page.click("#settings-save")
    card = tab.page.locator("#settings-status [data-error-code='validation.bad-body']")
    card.wait_for()
    assert "The server did not accept what was sent." in card.inner_text()
    assert "sessionLimit" in card.inner_text()
    assert "sessionLimit" not in tab.server.ok("GET", "/v1/config")["config"]


def test_the_analytics_tab_draws_health_and_the_timeline(tab: Tab) -> None:
    tab.server.ok("POST", "/v1/demo/seed")
    tab.open("analytics")
    tab.page.wait_for_selector("#health-score")
    tab.page.wait_for_selector("#timeline svg", state="attached")
    assert tab.page.locator("#timeline svg rect").count() == 60  # 30 days, created and recalled
    tab.page.wait_for_selector("#pm dl")
    tab.page.select_option("#pm-window", "7")
    tab.page.wait_for_selector("#pm dl")
    tab.shot("analytics")
    assert tab.errors == []


def test_the_project_tab_shows_never_stated_fields_as_not_stated(tab: Tab) -> None:
    from memesh.context import CallContext
    from tests.calls import call

    store = tab.server.store()
    try:
        ctx = CallContext(source_host="test", agent_view=False)
        call("task_state", store, {"project": "web", "goal": "Ship passkeys"}, ctx).unwrap()
    finally:
        store.close()
    tab.open("project")
    tab.page.wait_for_selector("#task-state dd[data-field='goal']")
    assert tab.page.inner_text("#task-state dd[data-field='goal']") == "Ship passkeys"
    for field in ("next", "blocked", "done"):
        assert tab.page.inner_text(f"#task-state dd[data-field='{field}']") == "not stated"


def test_the_project_tab_shows_the_durable_memory_index_as_a_table_whose_rows_open_the_memory(tab: Tab) -> None:
    remember(tab.server, name="web-decision", type="decision", title="Keep it small", observations=["Fewer parts"],
             tags=["project:web"])  # fmt: skip
    remember(tab.server, name="web-lesson", type="lesson_learned", observations=["Measure first"], tags=["project:web"])
    tab.open("project")
    table = tab.page.locator("#index-table")
    table.wait_for()
    assert tab.page.inner_text("#briefing-index h3") == "Durable memory index for web"
    rows = table.locator("tr[data-name]")
    assert rows.count() == 2
    first = rows.filter(has_text="Keep it small")
    assert "decision" in first.inner_text() and "Fewer parts" in first.inner_text()
    assert tab.page.locator("#index-lines").count() == 0  # no text dump
    first.get_by_role("button", name="Keep it small").click()
    tab.page.wait_for_selector("#memory-detail #detail-card h2:text-is('Keep it small')")
    assert tab.page.locator("section[data-panel='memories']").is_visible()
    tab.shot("project")
    assert tab.errors == []


def test_the_project_tab_shows_the_stated_task_as_goal_next_blocked_and_done(tab: Tab) -> None:
    from memesh.context import CallContext
    from tests.calls import call

    store = tab.server.store()
    try:
        state = {"project": "web", "goal": "Ship passkeys", "next": "Flag for staff", "blocked": "Security review"}
        call("task_state", store, state, CallContext(source_host="test", agent_view=False)).unwrap()
    finally:
        store.close()
    tab.open("project")
    tab.page.wait_for_selector("#task-state dd[data-field='blocked']")
    assert tab.page.inner_text("#task-state .task-goal") == "Ship passkeys"
    boxes = tab.page.locator("#task-state .task-box")
    assert [boxes.nth(i).locator("h4").inner_text().lower() for i in range(3)] == ["next", "blocked by", "done"]
    assert tab.page.locator("#task-state .task-box.blocked dd").inner_text() == "Security review"
    assert tab.page.inner_text("#task-state dd[data-field='done']") == "not stated"
    assert tab.errors == []


def _stage_improvements(server: Server, titles: list[str]) -> None:
    from memesh.context import CallContext
    from tests.calls import call

    remember(server, name="slow-recall", type="lesson_learned", observations=["Recall took 2 s at 100k"])
    store = server.store()
    try:
        ctx = CallContext(source_host="test", agent_view=True)
        for title in titles:
            call(
                "improvement",
                store,
                {
                    "action": "propose",
                    "project": "web",
                    "source_names": ["slow-recall"],
                    "title": title,
                    "problem": "Recall is slow on big graphs",
                    "proposed_change": f"{title}: cache the term statistics",
                    "verification_scenario": "Time recall at 100k memories",
                    "success_criteria": ["p50 under 50 ms"],
                },
                ctx,
            ).unwrap()
    finally:
        store.close()


def test_a_proposal_is_inspected_accepted_and_another_rejected(tab: Tab) -> None:
    _stage_improvements(tab.server, ["Cache term stats", "Rewrite recall in Rust"])
    tab.open("review")
    tab.page.wait_for_selector("#proposal-list .proposal")
    assert tab.page.locator("#proposal-list .proposal").count() == 2
    tab.page.locator("#proposal-list .proposal").first.click()
    tab.page.wait_for_selector("#accept")
    tab.shot("review")
    tab.page.click("#accept")
    tab.page.wait_for_selector("#review-result .notice")
    assert "1 sources linked as evidence" in tab.page.locator("#review-result .notice").inner_text()
    tab.page.wait_for_selector("#proposal-list .proposal")
    assert tab.page.locator("#proposal-list .proposal").count() == 1
    tab.page.locator("#proposal-list .proposal").first.click()
    tab.page.fill("#reject-reason", "Not now")
    tab.page.click("#reject")
    tab.page.wait_for_selector("#proposal-list .card.muted")
    statuses = sorted(p["status"] for p in tab.server.ok("GET", "/v1/dream/proposals?status=all"))
    assert statuses == ["applied", "rejected"]
    assert tab.errors == []


def test_a_guard_proposal_shows_its_pattern_before_it_is_accepted(tab: Tab) -> None:
    from memesh.app import gate
    from memesh.context import CallContext
    from memesh.ops import stage_proposal

    remember(tab.server, name="lesson-force-push", type="lesson_learned", observations=["It lost a day of work"])
    body = {
        "project": "web",
        "lesson": "lesson-force-push",
        "pattern": r"git\s+push\b.*--force",
        "message": "Force-pushing main lost a day of work",
        "should_match": ["git push origin main --force", "git push -u x --force"],
        "should_not_match": ["git push origin main", "git pull --force"],
    }
    store = tab.server.store()
    try:
        admitted = gate.admit("proposals/guard.input", body).unwrap()
        stage_proposal.stage_guard(store, admitted, ctx=CallContext(source_host="test", agent_view=False)).unwrap()
    finally:
        store.close()
    tab.open("review")
    tab.page.wait_for_selector("#proposal-list .proposal")
    assert "guard (Bash) on lesson-force-push" in tab.page.locator("#proposal-list .proposal").first.inner_text()
    tab.page.locator("#proposal-list .proposal").first.click()
    tab.page.wait_for_selector(".proposal-payload")
    assert "git\\\\s+push" in tab.page.locator(".proposal-payload").inner_text()
    tab.shot("review-guard")
    tab.page.click("#accept")
    tab.page.wait_for_selector("#review-result .notice")
    assert "guard on lesson-force-push" in tab.page.locator("#review-result .notice").inner_text()
    assert tab.errors == []


@pytest.mark.one_engine("the page's doctor card and config repair")
def test_doctor_runs_its_checks_and_repairs_only_on_request(tab: Tab) -> None:
    config = tab.server.home / ".memesh" / "config.json"
    config.write_text('{"llmProvider": "retired", "sessionLimit": 12}', encoding="utf-8")
    tab.open("doctor")
    tab.page.wait_for_selector("#doctor .doctor-check")
    assert not [line for line in tab.requests if line.startswith("POST") and "/v1/doctor/fix" in line]
    tab.shot("doctor")
    repair = tab.page.locator(".doctor-check[data-id='config']").get_by_role("button", name="Repair")
    if repair.count():  # the spec's one recoverable config repair: retired top-level keys
        repair.click()
        tab.page.wait_for_selector(".doctor-check[data-id='config'] .notice, .doctor-check[data-id='config'] .error")
        assert [line for line in tab.requests if line.startswith("POST") and "/v1/doctor/fix" in line]
        assert "llmProvider" not in config.read_text(encoding="utf-8")
    assert tab.errors == []


@pytest.mark.one_engine("the origin check, before any store is read")
def test_a_page_on_another_site_cannot_drive_the_api(tab: Tab) -> None:
    tab.server.ok("POST", "/v1/demo/seed")
    other_site = tab.server.url.replace("127.0.0.1", "localhost")  # another origin and another site
    tab.page.goto(other_site + "/dashboard")
    tab.page.wait_for_selector("body[data-ready='true']")
    tab.page.evaluate(
        "url => fetch(url, {method: 'POST', mode: 'no-cors', body: '{}'}).catch(() => null)",
        tab.server.url + "/v1/demo/reset",
    )
    assert tab.server.ok("GET", "/v1/stats")["totalEntities"] == 12


@pytest.mark.one_engine("the page's own objects")
def test_a_memory_type_named_proto_is_a_row_of_its_own_and_leaves_the_object_prototype_alone(tab: Tab) -> None:
    remember(tab.server, name="odd-type", type="__proto__", observations=["typed __proto__"])
    remember(tab.server, name="plain", type="fact", observations=["an ordinary memory"])
    tab.open("analytics")
    age = tab.page.locator(".card:has(h3:text-is('Age')) table")
    age.wait_for()
    rows = [row.split("\t")[0] for row in age.inner_text().splitlines()[1:]]
    assert sorted(rows) == ["__proto__", "fact"]
    polluted = tab.page.evaluate("() => ['week', 'month', 'quarter', 'older'].filter((key) => key in {})")
    assert polluted == []
    assert tab.errors == []


@pytest.mark.one_engine("the page's routing of names")
def test_memories_named_dot_and_dot_dot_open_in_the_detail(tab: Tab) -> None:
    remember(tab.server, name=".", type="fact", observations=["the one named dot"])
    remember(tab.server, name="..", type="fact", observations=["the one named dot dot"])
    tab.open()
    for name, text in ((".", "the one named dot"), ("..", "the one named dot dot")):
        tab.page.click(f"#memory-list .memory[data-name='{name}']")
        tab.page.wait_for_selector(f"#detail-card .obs:text-is('{text}')")
    assert tab.errors == []


@pytest.mark.one_engine("the page's routing")
def test_an_address_naming_an_inherited_property_opens_the_memories_tab(tab: Tab) -> None:
    tab.open("constructor")
    assert tab.page.locator("section[data-panel='memories']").is_visible()
    assert tab.errors == []


def _graph_fixture(server: Server) -> None:
    remember(server, name="old-way", type="decision", title="Sessions in localStorage", observations=["Simple"])
    remember(server, name="new-way", type="decision", title="Sessions in a cookie", observations=["HttpOnly"],
             relations=[{"to": "old-way", "type": "supersedes"}])  # fmt: skip
    remember(server, name="other-view", type="lesson_learned", title="Cookies broke the app", observations=["CSRF"],
             relations=[{"to": "new-way", "type": "contradicts"}])  # fmt: skip
    remember(server, name="note-1", type="fact", observations=["Lunch is at noon"])


def test_the_graph_tab_draws_types_in_colour_with_conflicts_and_supersedes_and_a_click_opens_the_memory(
    tab: Tab,
) -> None:
    _graph_fixture(tab.server)
    tab.open("graph")
    tab.page.wait_for_selector("#graph-canvas svg .node")
    svg = tab.page.locator("#graph-canvas svg")
    assert svg.locator(".node").count() == 4
    assert svg.locator(".node.archived").get_attribute("data-name") == "old-way"  # superseded: drawn faded
    fills = {
        name: svg.locator(f".node[data-name='{name}'] circle").get_attribute("fill")
        for name in ("new-way", "old-way", "other-view", "note-1")
    }
    assert fills["new-way"] == fills["old-way"] != fills["other-view"] != fills["note-1"]  # one colour per type
    assert svg.locator("line.edge.contradicts[data-from='other-view'][data-to='new-way']").count() == 1
    assert svg.locator("line.edge.supersedes[data-from='new-way'][data-to='old-way']").count() == 1
    legend = tab.page.inner_text("#graph-legend")
    assert "contradicts 1" in legend and "supersedes 1" in legend and "lesson_learned" in legend
    assert "4 of 4 memories, 2 of 2 relations" in tab.page.inner_text("#graph-summary")
    svg.locator(".node[data-name='other-view'] circle").click()
    detail = tab.page.locator("#graph-detail #detail-card")
    detail.wait_for()
    assert detail.locator("h2").inner_text() == "Cookies broke the app"
    assert svg.locator(".node.selected").get_attribute("data-name") == "other-view"
    tab.shot("graph")
    assert tab.errors == []


def test_show_in_graph_draws_the_neighbourhood_of_that_memory(tab: Tab) -> None:
    _graph_fixture(tab.server)
    tab.open()
    tab.page.click("#memory-list .memory[data-name='new-way']")
    tab.page.locator("#detail-card").get_by_role("button", name="Show in graph").click()
    tab.page.wait_for_selector("#graph-canvas svg .node.selected[data-name='new-way']")
    names = {tab.page.locator("#graph-canvas .node").nth(i).get_attribute("data-name") for i in range(3)}
    assert names == {"new-way", "old-way", "other-view"}  # note-1 is not related to it
    assert tab.page.locator("#graph-canvas .node").count() == 3
    assert "Around new-way" in tab.page.inner_text("#graph-center")
    tab.page.click("#graph-all")
    tab.page.wait_for_selector("#graph-canvas .node[data-name='note-1']")
    assert tab.errors == []


@pytest.mark.one_engine("the page's layout")
def test_the_memory_list_uses_the_width_and_names_auto_captured_memories_by_what_they_hold(tab: Tab) -> None:
    name = "session-6f1c2a9e-4b7d-4c1e-9a55-0d3e8b7f21aa-summary"
    remember(tab.server, name=name, type="session-insight",
             observations=["Session in web: 23 tool calls (Edit 9, Bash 8); 1 failed; 4 files edited"])  # fmt: skip
    for i in range(5):
        remember(tab.server, name=f"fact-{i}", type="fact", observations=[f"fact number {i}"])
    tab.open()
    card = tab.page.locator(f"#memory-list .memory[data-name='{name}']")
    assert (
        card.locator("h3").inner_text() == "Session summary: 23 tool calls (Edit 9, Bash 8); 1 failed; 4 files edited"
    )
    assert card.locator(".name").inner_text() == name  # the stored name is still shown, and unchanged
    assert tab.server.ok("GET", f"/v1/entity?name={name}")["name"] == name
    boxes = [tab.page.locator("#memory-list .memory").nth(i).bounding_box() for i in range(3)]
    assert len({round(box["y"]) for box in boxes}) == 1  # three cards side by side on a 1280-pixel page
    main = tab.page.locator("main").bounding_box()
    listed = tab.page.locator("#memory-list").bounding_box()
    assert listed["width"] > 0.9 * (main["width"] - 40)
    tab.shot("memories-wide")
    assert tab.errors == []


def test_a_memory_page_shows_relations_both_ways_its_history_and_its_provenance(tab: Tab) -> None:
    _graph_fixture(tab.server)
    remember(tab.server, name="new-way", type="decision", replace=True, title="Sessions in an HttpOnly cookie",
             observations=["HttpOnly, SameSite=Lax"])  # fmt: skip
    tab.open()
    tab.page.click("#memory-list .memory[data-name='new-way']")
    detail = tab.page.locator("#detail-card")
    detail.locator("#provenance").wait_for()
    relations = detail.locator("#relations").inner_text()
    assert "supersedes → old-way" in relations  # stated here
    assert "contradicts ← other-view" in relations  # stated on the other memory
    history = detail.locator("#history").inner_text()
    assert "Sessions in a cookie" in history and "HttpOnly" in history
    provenance = detail.locator("#provenance").inner_text()
    assert "written by" in provenance
    assert provenance.split()[0] == "author"  # who wrote it leads (issue 32)
    assert "[object" not in detail.inner_text()
    detail.get_by_role("button", name="other-view").click()
    tab.page.wait_for_selector("#detail-card h2:text-is('Cookies broke the app')")
    assert tab.errors == []


@pytest.mark.one_engine("config.json, a local file on either engine")
def test_settings_show_capture_on_when_nothing_is_stored_and_no_stray_null(tab: Tab) -> None:
    tab.open("settings")
    tab.page.wait_for_selector("#capture-source:text-is('on by default')")  # the fields are filled
    assert tab.page.is_checked("#set-autoCapture")
    tab.page.wait_for_selector("#update-status dl")
    assert "null" not in tab.page.inner_text("section[data-panel='settings']")
    tab.page.uncheck("#set-autoCapture")
    tab.page.click("#settings-save")
    tab.page.wait_for_selector("#settings-saved")
    assert tab.server.ok("GET", "/v1/config")["config"] == {"autoCapture": False}
    tab.page.wait_for_selector("#capture-source:text-is('stored in config.json')")
    assert not tab.page.is_checked("#set-autoCapture")
    assert tab.errors == []


@pytest.mark.one_engine("the page's layout")
def test_the_age_table_fits_its_card(tab: Tab) -> None:
    tab.server.ok("POST", "/v1/demo/seed")
    tab.open("analytics")
    card = tab.page.locator("#age")
    card.locator("table").wait_for()
    width = tab.page.evaluate(
        "() => { const c = document.getElementById('age'); return [c.scrollWidth, c.clientWidth]; }"
    )
    assert width[0] <= width[1]
    assert tab.errors == []


@pytest.mark.one_engine("the redirect: no store is read")
def test_the_server_address_opens_the_dashboard(tab: Tab) -> None:
    tab.page.goto(tab.server.url + "/")
    tab.page.wait_for_selector("body[data-ready='true']")
    assert tab.page.url == tab.server.url + "/dashboard#memories"
    assert tab.errors == []
