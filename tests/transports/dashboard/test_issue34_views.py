"""The dashboard's views of issue 34 in Chromium against a real `memesh serve`: conflicts as recall reports them,
a detail pane that follows the selection, project labels in titles, newest first, a graph that keeps related
memories together with labels that do not collide, and Settings that fit and set the recall mode. The page's pure
helpers (layout, labels, project names) are called with plain values in the same browser."""

from __future__ import annotations

import json
import time
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

pytestmark = pytest.mark.browser

if TYPE_CHECKING:
    from tests.transports.dashboard.conftest import Server, Tab

ROOT = Path(__file__).resolve().parents[3]
SHOP = "shop~" + "c566806a" * 4
SHOP_TWIN = "shop~" + "0123abcd" * 4


def remember(server: Server, **body: Any) -> None:
    server.ok("POST", "/v1/remember", json=body)


def _selected(tab: Tab) -> list[str]:
    cards = tab.page.locator("#memory-list .memory.selected")
    return [cards.nth(i).get_attribute("data-name") or "" for i in range(cards.count())]


def _shown(tab: Tab, name: str) -> None:
    """Wait until the detail pane shows `name` (its card is the one the pane was filled for)."""
    tab.page.wait_for_selector(f"#memory-detail #detail-card[data-name='{name}']")


# --- conflicts --------------------------------------------------------------------------------------------------------


def test_a_search_shows_the_conflicts_recall_reports_and_a_memory_page_shows_its_own(tab: Tab) -> None:
    remember(
        tab.server, name="tokens-15m", type="decision", title="Tokens live 15 minutes", observations=["short tokens"]
    )
    remember(tab.server, name="tokens-1h", type="decision", title="Tokens live one hour", observations=["long tokens"],
             relations=[{"to": "tokens-15m", "type": "contradicts"}])  # fmt: skip
    remember(tab.server, name="tokens-rotate", type="lesson_learned", observations=["rotate tokens"])
    reported = tab.server.ok("POST", "/v1/recall", json={"query": "tokens", "limit": 50})["conflicts"]
    tab.open()
    tab.page.fill("#search", "tokens")
    tab.page.click("#search-form button[type=submit]")
    tab.page.wait_for_selector("#search-conflicts")
    lines = tab.page.locator("#search-conflicts .conflict-line")
    assert [lines.nth(i).get_attribute("data-line") for i in range(lines.count())] == reported
    assert reported == ['"tokens-1h" contradicts "tokens-15m"']
    marked = tab.page.locator("#memory-list .memory.in-conflict")
    assert sorted(marked.nth(i).get_attribute("data-name") or "" for i in range(marked.count())) == [
        "tokens-15m",
        "tokens-1h",
    ]
    assert tab.page.locator("#memory-list .memory[data-name='tokens-rotate'] .conflict-badge").count() == 0
    tab.page.click("#memory-list .memory[data-name='tokens-15m']")
    _shown(tab, "tokens-15m")
    assert (
        tab.page.inner_text("#memory-conflicts-of").splitlines()[1].startswith('"tokens-1h" contradicts "tokens-15m"')
    )
    tab.shot("search-conflicts")
    assert tab.errors == []


def test_a_search_without_stated_conflicts_shows_none(tab: Tab) -> None:
    remember(tab.server, name="a", type="fact", observations=["alpha tokens"])
    tab.open()
    tab.page.fill("#search", "alpha")
    tab.page.click("#search-form button[type=submit]")
    tab.page.wait_for_selector("#memory-list .memory[data-name='a']")
    assert tab.page.locator("#search-conflicts").count() == 0
    assert tab.errors == []


# --- selection --------------------------------------------------------------------------------------------------------


def test_the_detail_follows_the_selection_by_click_keyboard_and_search(tab: Tab) -> None:
    for i in range(5):
        remember(
            tab.server,
            name=f"memo-{i}",
            type="fact",
            observations=[f"memo number {i} {'even' if i % 2 == 0 else 'odd'}"],
        )
    tab.open()
    tab.page.click("#memory-list .memory[data-name='memo-4']")  # newest first: memo-4 leads
    _shown(tab, "memo-4")
    assert _selected(tab) == ["memo-4"]
    for _ in range(3):  # quick presses: only the last answer may fill the pane
        tab.page.keyboard.press("ArrowRight")
    _shown(tab, "memo-1")
    assert _selected(tab) == ["memo-1"]
    tab.page.keyboard.press("ArrowLeft")
    _shown(tab, "memo-2")
    assert _selected(tab) == ["memo-2"]
    tab.page.keyboard.press("Tab")  # focus moves to the next card: it is opened, not only outlined
    _shown(tab, "memo-1")
    assert _selected(tab) == ["memo-1"]
    tab.page.fill("#search", "even")  # memo-1 is odd: it leaves the list, and the pane with it
    tab.page.click("#search-form button[type=submit]")
    tab.page.wait_for_selector("#memory-split.list-only")
    assert _selected(tab) == [] and tab.page.locator("#memory-detail #detail-card").count() == 0
    tab.page.click("#memory-list .memory[data-name='memo-2']")
    _shown(tab, "memo-2")
    tab.page.fill("#search", "memo")  # still listed: still selected and shown
    tab.page.click("#search-form button[type=submit]")
    tab.page.wait_for_selector("#memory-list .memory[data-name='memo-3']")
    assert _selected(tab) == ["memo-2"]
    _shown(tab, "memo-2")
    assert tab.errors == []


def test_a_relation_followed_in_the_detail_moves_the_selection_with_it(tab: Tab) -> None:
    remember(tab.server, name="base", type="decision", observations=["the base"])
    remember(tab.server, name="builds", type="decision", observations=["builds on it"],
             relations=[{"to": "base", "type": "builds-on"}])  # fmt: skip
    tab.open()
    tab.page.click("#memory-list .memory[data-name='builds']")
    _shown(tab, "builds")
    tab.page.locator("#detail-card").get_by_role("button", name="base").click()
    _shown(tab, "base")
    assert _selected(tab) == ["base"]
    assert tab.errors == []


# --- titles and order -------------------------------------------------------------------------------------------------


def test_titles_show_the_projects_label_and_the_stored_title_is_unchanged(tab: Tab) -> None:
    title = f"Session handoff for {SHOP}"
    remember(tab.server, name=f"session-handoff:{SHOP}", type="session-handoff", title=title,
             observations=[f"Next in {SHOP}: refunds"], tags=[f"project:{SHOP}"])  # fmt: skip
    tab.open()
    card = tab.page.locator(f"#memory-list .memory[data-name='session-handoff:{SHOP}']")
    assert card.locator("h3").inner_text() == "Session handoff for shop"
    assert card.locator(".obs-preview").inner_text() == "Next in shop: refunds"
    assert "shop (1)" in tab.page.inner_text("#project-chips")
    assert tab.server.ok("GET", f"/v1/entity?name=session-handoff:{SHOP}")["title"] == title
    assert tab.errors == []


def test_a_label_two_projects_share_keeps_the_start_of_each_id(tab: Tab) -> None:
    for project in (SHOP, SHOP_TWIN):
        remember(tab.server, name=f"session-handoff:{project}", type="session-handoff",
                 title=f"Session handoff for {project}", observations=["x"], tags=[f"project:{project}"])  # fmt: skip
    tab.open()
    titles = sorted(tab.page.locator("#memory-list .memory h3").all_inner_texts())
    assert titles == ["Session handoff for shop~0123abcd…", "Session handoff for shop~c566806a…"]
    assert tab.errors == []


def test_the_list_is_newest_first_in_all_memories_and_in_a_project(tab: Tab) -> None:
    tab.server.ok("POST", "/v1/demo/seed")  # the tour's memories carry dates over the past months
    tab.open()
    for chip in ("All", "memesh-demo"):
        tab.page.locator("#project-chips button", has_text=chip).first.click()
        tab.page.wait_for_selector(f"#project-chips button[aria-pressed='true']:has-text('{chip}')")
        tab.page.locator("#memory-list .memory").nth(9).wait_for()
        dates = [text.split("\n")[0] for text in tab.page.locator("#memory-list .memory .row .muted").all_inner_texts()]
        assert len(dates) >= 10 and dates == sorted(dates, reverse=True), (chip, dates)
    assert tab.errors == []


# --- graph ------------------------------------------------------------------------------------------------------------


def _boxes(tab: Tab, selector: str) -> list[dict[str, float]]:
    found = tab.page.locator(selector)
    return [box for i in range(found.count()) if (box := found.nth(i).bounding_box())]


def _overlap(a: Mapping[str, float], b: Mapping[str, float]) -> bool:
    return (
        a["x"] < b["x"] + b["width"]
        and b["x"] < a["x"] + a["width"]
        and a["y"] < b["y"] + b["height"]
        and b["y"] < a["y"] + a["height"]
    )


def test_the_graph_keeps_related_memories_together_links_a_commit_and_labels_do_not_collide(tab: Tab) -> None:
    remember(tab.server, name="use-pkce", type="decision", title="Use PKCE for the public client", observations=["x"])
    remember(tab.server, name="commit-1a2b3c4", type="commit", title="feat(auth): PKCE for the web client",
             observations=["PKCE"], relations=[{"to": "use-pkce", "type": "implements"}])  # fmt: skip
    remember(tab.server, name="release-2-4", type="release", title="Release 2.4", observations=["x"],
             relations=[{"to": "use-pkce", "type": "caused"}])  # fmt: skip
    remember(tab.server, name="wal", type="decision", title="SQLite in WAL mode", observations=["x"])
    remember(tab.server, name="wal-lesson", type="lesson_learned", title="Readers waited on the writer",
             observations=["x"], relations=[{"to": "wal", "type": "caused"}])  # fmt: skip
    for i in range(30):
        remember(
            tab.server,
            name=f"fact-{i:02d}",
            type="fact",
            title=f"A fact without relations, number {i}",
            observations=["x"],
        )
    tab.open("graph")
    tab.page.wait_for_selector("#graph-canvas svg .node")
    svg = tab.page.locator("#graph-canvas svg")
    assert svg.locator("line.edge[data-from='commit-1a2b3c4'][data-to='use-pkce'][data-type='implements']").count() == 1

    def centre(name: str) -> tuple[float, float]:
        box = svg.locator(f".node[data-name='{name}'] circle").bounding_box()
        assert box is not None
        return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2

    def apart(a: str, b: str) -> float:
        (ax, ay), (bx, by) = centre(a), centre(b)
        return float(((ax - bx) ** 2 + (ay - by) ** 2) ** 0.5)

    # each related memory is nearer its relatives than to any memory it is not related to
    assert apart("commit-1a2b3c4", "use-pkce") < min(
        apart("commit-1a2b3c4", other) for other in ("wal", "fact-00", "fact-29")
    )
    assert apart("wal-lesson", "wal") < min(apart("wal", other) for other in ("use-pkce", "fact-00", "release-2-4"))
    assert "fact · 30 without relations" in svg.locator(".group-caption").all_text_contents()
    nodes = svg.locator(".node")
    drawn = []  # (its circle, its label or None) for every memory
    for i in range(nodes.count()):
        text = nodes.nth(i).locator("text")
        drawn.append((nodes.nth(i).locator("circle").bounding_box(), text.bounding_box() if text.count() else None))
    labels = [label for _, label in drawn if label]
    assert len(labels) >= 25  # most memories keep a visible label
    assert not any(_overlap(a, b) for i, a in enumerate(labels) for b in labels[i + 1 :])
    assert not any(
        _overlap(label, circle)
        for j, (_, label) in enumerate(drawn)
        if label
        for k, (circle, _) in enumerate(drawn)
        if k != j
    )
    for text in svg.locator(".node text").all_text_contents():
        assert len(text) <= 26
    title = svg.locator(".node[data-name='fact-07'] title").text_content() or ""
    assert title.startswith("A fact without relations, number 7")  # the whole title on hover
    tab.shot("graph-clusters")
    assert tab.errors == []


# --- settings ---------------------------------------------------------------------------------------------------------


@pytest.mark.one_engine("config.json, a local file on either engine")
@pytest.mark.parametrize("size", [(1280, 800), (390, 844)])
def test_settings_fit_and_set_the_recall_mode(tab: Tab, size: tuple[int, int]) -> None:
    tab.page.set_viewport_size({"width": size[0], "height": size[1]})
    tab.open("settings")
    tab.page.wait_for_selector("#capture-source:not(:empty)")
    assert tab.page.locator("#set-recallMode option").first.inner_text() == "(not set: fts)"
    form = tab.page.locator("#settings-form")
    widths = form.evaluate(
        "(node) => [node.scrollWidth, node.clientWidth, document.documentElement.scrollWidth, innerWidth]"
    )
    assert widths[0] <= widths[1] and widths[2] <= widths[3], widths
    box = form.bounding_box()
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= size[0]
    tab.page.select_option("#set-recallMode", "broad")
    tab.page.click("#settings-save")
    tab.page.wait_for_selector("#settings-saved")
    assert tab.server.ok("GET", "/v1/config")["config"]["recallMode"] == "broad"
    deadline = time.monotonic() + 20
    while json.loads(tab.page.inner_text("#settings-readback") or "{}").get("recallMode") != "broad":
        assert time.monotonic() < deadline
        tab.page.wait_for_timeout(100)
    assert tab.page.locator("#set-recallMode").input_value() == "broad"
    assert tab.errors == []


@pytest.mark.one_engine("the page's text")
def test_the_recall_modes_offered_are_the_schemas(tab: Tab) -> None:
    schema = json.loads((ROOT / "schemas" / "http" / "config_update.input.json").read_text())
    tab.open("settings")
    offered = tab.page.locator("#set-recallMode option").all_inner_texts()[1:]
    assert offered == schema["properties"]["recallMode"]["enum"]
    assert tab.errors == []


# --- the pure helpers -------------------------------------------------------------------------------------------------


@pytest.mark.one_engine("the page's pure helpers")
def test_project_ids_are_shown_by_label_only_where_the_store_knows_them(tab: Tab) -> None:
    tab.open()
    shown = tab.page.evaluate(
        """([known, texts]) => { const names = MemeshPure.projectNames(known);
             return texts.map((t) => MemeshPure.withLabels(t, names)); }""",
        [
            [SHOP, "web~" + "e" * 32, "plain"],
            [f"handoff for {SHOP}", f"{SHOP} and web~{'e' * 32}", "shop~" + "f" * 32, "no id", "plain"],
        ],
    )
    assert shown == ["handoff for shop", "shop and web", "shop~" + "f" * 32, "no id", "plain"]
    twins = tab.page.evaluate(
        "([known, text]) => MemeshPure.withLabels(text, MemeshPure.projectNames(known))", [[SHOP, SHOP_TWIN], SHOP]
    )
    assert twins == "shop~c566806a…"


@pytest.mark.one_engine("the page's pure helpers")
def test_the_layout_packs_groups_apart_and_is_the_same_every_time(tab: Tab) -> None:
    tab.open()
    nodes = [{"name": f"n{i}", "type": "decision" if i % 3 else "fact"} for i in range(40)]
    pairs = [("n1", "n2"), ("n2", "n4"), ("n5", "n7"), ("n7", "n1"), ("n10", "n11"), ("n11", "n13")]
    edges = [{"from": a, "to": b} for a, b in pairs]
    call = "([n, e]) => MemeshPure.layout(n, e, 1.4)"
    laid = tab.page.evaluate(call, [nodes, edges])
    assert laid == tab.page.evaluate(call, [nodes, edges])  # seeded by name: the same picture every time
    groups = laid["groups"]
    related = [sorted(g["members"]) for g in groups if g["kind"] == "related"]
    assert sorted(related) == [["n1", "n2", "n4", "n5", "n7"], ["n10", "n11", "n13"]]
    assert {g["key"] for g in groups if g["kind"] == "type"} == {"decision", "fact"}
    assert sum(len(g["members"]) for g in groups) == 40
    for g in groups:  # each memory inside its group's box, and no two boxes overlap
        for name in g["members"]:
            p = laid["pos"][int(name[1:])]
            assert g["x"] - 1 <= p["x"] <= g["x"] + g["w"] + 1 and g["y"] - 1 <= p["y"] <= g["y"] + g["h"] + 1
    boxes = [{"x": g["x"], "y": g["y"], "width": g["w"], "height": g["h"]} for g in groups]
    assert not any(_overlap(a, b) for i, a in enumerate(boxes) for b in boxes[i + 1 :])
    assert 0.5 < laid["width"] / max(1, laid["height"]) < 4  # packed to the frame's shape, not one long row


@pytest.mark.one_engine("the page's pure helpers")
def test_placed_labels_never_overlap_each_other_or_a_node(tab: Tab) -> None:
    tab.open()
    points = [{"x": (i % 6) * 40, "y": (i // 6) * 12} for i in range(36)]  # crowded on purpose
    texts = [f"label number {i}" for i in range(36)]
    sides = tab.page.evaluate(
        "([p, t]) => MemeshPure.placeLabels(p, t, p.map(() => 5), p.map((_, i) => i))", [points, texts]
    )
    char_w, line_h = tab.page.evaluate("[MemeshPure.CHAR_W, MemeshPure.LINE_H]")
    rects = []
    for i, side in enumerate(sides):
        if side is None:
            continue
        w = len(texts[i]) * char_w
        x = points[i]["x"] + 8 if side == "right" else points[i]["x"] - 8 - w
        rects.append({"x": x, "y": points[i]["y"] - line_h / 2, "width": w, "height": line_h})
    assert sides[0] is not None and len(rects) >= 6  # the first asked gets a place, and others too
    assert not any(_overlap(a, b) for i, a in enumerate(rects) for b in rects[i + 1 :])
    nodes = [{"x": p["x"] - 5, "y": p["y"] - 5, "width": 10, "height": 10} for p in points]
    assert not any(_overlap(r, n) for r in rects for n in nodes)
