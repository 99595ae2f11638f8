"""The feedback issue with plain values: redaction, the body a user reviews, and the link's length."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

from memesh.core import feedback


def test_redact_blanks_paths_and_credentials_keeping_structure() -> None:
    raw = {"db": "/home/alice/.memesh/knowledge-graph.db", "note": ["token=ghp_" + "a" * 36], "n": 3}
    assert feedback.redact(raw) == {"db": "<path>", "note": ["***REDACTED***"], "n": 3}


def test_bug_body_holds_the_message_the_prompts_and_redacted_diagnostics() -> None:
    body = feedback.body("bug", "Recall hangs\non big DBs", {"home": "/home/alice"})
    assert body.startswith("## Bug report\n\nRecall hangs\non big DBs\n")
    assert "### Steps to reproduce" in body
    assert '"home": "<path>"' in body
    assert "alice" not in body


def test_no_diagnostics_leaves_the_block_out() -> None:
    assert "Diagnostics" not in feedback.body("question", None, None)


TRACKER = "https://github.com/owner/memesh-python/issues"


def test_no_declared_tracker_gives_no_link_and_another_tracker_is_given_as_it_is() -> None:
    assert feedback.issue_url("bug", "[bug] x", "body", None) == ""
    assert (
        feedback.issue_url("bug", "[bug] x", "body", "https://tracker.example/memesh")
        == "https://tracker.example/memesh"
    )


def test_title_is_the_first_line_of_the_message() -> None:
    assert feedback.title("feature", "Dark mode please\nfor the dashboard") == "[feature] Dark mode please"
    assert feedback.title("question", None) == "[question] "


def test_issue_url_prefills_title_body_and_label() -> None:
    url = feedback.issue_url("bug", "[bug] x", "body text", TRACKER)
    parts = urlsplit(url)
    assert (parts.netloc, parts.path) == ("github.com", "/owner/memesh-python/issues/new")
    query = parse_qs(parts.query)
    assert query == {"title": ["[bug] x"], "body": ["body text"], "labels": ["bug"]}


def test_an_overlong_body_keeps_the_link_under_the_limit_and_says_to_paste() -> None:
    body = feedback.body("bug", "short", {"blob": "x" * 20000})
    url = feedback.issue_url("bug", "[bug] short", body, TRACKER)
    assert len(url) <= feedback.URL_LIMIT
    assert "paste them from the terminal" in parse_qs(urlsplit(url).query)["body"][0]
