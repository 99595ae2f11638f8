"""`memesh demo` and `memesh feedback` as a user types them."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING
from urllib.parse import parse_qs, urlsplit

import pytest

if TYPE_CHECKING:
    from tests.transports.cli.conftest import Cli


def test_demo_seeds_then_says_it_is_loaded_then_resets(cli: Cli) -> None:
    first = cli.ok("demo")
    assert first.out.startswith("Added 12 demo memories (project memesh-demo).")
    assert "memesh demo --reset" in first.out
    assert "already loaded" in cli.ok("demo").out
    assert cli.ok("demo", "--reset", "--json").json() == {"inserted": 0, "removed": 12}
    assert cli.ok("recall", "--json").json()["entities"] == []


def test_demo_reset_leaves_the_users_own_memories(cli: Cli) -> None:
    cli.ok("remember", "--name", "mine", "--type", "fact", "--obs", "kept")
    cli.ok("demo")
    cli.ok("demo", "--reset")
    assert [e["name"] for e in cli.ok("recall", "--json").json()["entities"]] == ["mine"]


TRACKER = "https://github.com/example-owner/memesh-python/issues"


@pytest.fixture
def tracker(monkeypatch: pytest.MonkeyPatch) -> str:
    """This copy declares an Issues URL (pyproject's [project.urls]), as a published build does."""
    monkeypatch.setattr("memesh.adapters.update_check.issue_tracker", lambda: TRACKER)
    return TRACKER


def test_feedback_targets_the_tracker_this_distribution_declares(cli: Cli, tracker: str) -> None:
    [line] = cli.ok("feedback", "--bug", "--message", "x", "--no-open").out.splitlines()
    assert line.startswith(f"{tracker}/new?")
    assert "PCIRCLE-AI" not in line


def test_feedback_with_no_declared_tracker_links_to_no_other_project(cli: Cli, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("memesh.adapters.update_check.issue_tracker", lambda: None)
    opened: list[str] = []

    def fake_open(url: str) -> bool:
        opened.append(url)
        return True

    monkeypatch.setattr("webbrowser.open", fake_open)
    shown = cli.ok("feedback", "--bug", "--message", "It broke")
    assert "## Bug report" in shown.out and "github.com" not in shown.out
    assert "names no public issue tracker" in shown.err
    no_open = cli("feedback", "--bug", "--no-open")
    assert no_open.code == 0 and "## Bug report" in no_open.out and "github.com" not in no_open.out
    assert opened == []


def test_feedback_body_includes_the_redacted_doctor_report(cli: Cli, tracker: str, memesh_env: object) -> None:
    body = parse_qs(urlsplit(cli.ok("feedback", "--bug", "--no-open").out.strip()).query)["body"][0]
    diagnostics = json.loads(body.split("```json\n", 1)[1].split("\n```", 1)[0])
    doctor = diagnostics["doctor"]
    assert doctor["status"] in {"PASS", "PASS_WITH_CONCERNS", "FAIL"}
    assert {line.split(":", 1)[0] for line in doctor["checks"]} >= {"install", "database", "config"}
    assert str(memesh_env) not in body


def test_feedback_no_open_prints_only_the_prefilled_link(cli: Cli, tracker: str) -> None:
    outcome = cli.ok("feedback", "--bug", "--message", "Recall is slow", "--no-open")
    [line] = outcome.out.splitlines()
    query = parse_qs(urlsplit(line).query)
    assert query["title"] == ["[bug] Recall is slow"]
    assert query["labels"] == ["bug"]
    assert "Diagnostics (redacted)" in query["body"][0]
    assert '"installId": "' in query["body"][0]


def test_feedback_diagnostics_hold_no_path_and_no_secret(cli: Cli, memesh_env: object, tracker: str) -> None:
    cli.ok("config", "set", "sessionLimit", "20")
    body = parse_qs(urlsplit(cli.ok("feedback", "--question", "--no-open").out.strip()).query)["body"][0]
    assert "/home" not in body
    assert str(memesh_env) not in body
    assert "sessionLimit" in body


def test_feedback_without_diagnostics_leaves_them_out(cli: Cli, tracker: str) -> None:
    body = parse_qs(urlsplit(cli.ok("feedback", "--feature", "--no-diagnostics", "--no-open").out.strip()).query)
    assert "Diagnostics" not in body["body"][0]
    assert body["labels"] == ["enhancement"]


def test_feedback_prints_the_exact_body_before_opening_a_browser(
    cli: Cli, monkeypatch: pytest.MonkeyPatch, tracker: str
) -> None:
    opened: list[str] = []

    def fake_open(url: str) -> bool:
        opened.append(url)
        return True

    monkeypatch.setattr("webbrowser.open", fake_open)
    outcome = cli.ok("feedback", "--bug", "--message", "It broke")
    assert outcome.out.index("## Bug report") < outcome.out.index(f"Link: {tracker}/new?")
    assert len(opened) == 1


def test_feedback_needs_exactly_one_kind(cli: Cli) -> None:
    assert cli("feedback").code == 2
    assert cli("feedback", "--bug", "--feature").code == 2
