"""Recall that knows when (issue 38): `since` / `until` in every mode, and the time a question names in broad and
hybrid, on both engines, through the door, with the call's clock."""

from __future__ import annotations

import shutil
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memesh.context import CallContext
from memesh.errors import ErrorCode
from memesh.store.sqlite import SqliteStore, open_store
from tests.calls import call

ASKED = datetime(2023, 10, 20, 15, 0, tzinfo=UTC)


def remember_at(  # noqa: PLR0917 - a memory as a sentence: where, when, what
    store: SqliteStore, ctx: CallContext, when: datetime, name: str, text: str, tags: list[str] | None = None
) -> None:
    arguments: dict[str, Any] = {"name": name, "type": "note", "observations": [text]}
    if tags:
        arguments["tags"] = tags
    call("remember", store, arguments, ctx.at(when)).unwrap()


def recall(store: SqliteStore, ctx: CallContext, **arguments: Any) -> dict[str, Any]:
    output: dict[str, Any] = call("recall", store, arguments, ctx.at(ASKED)).unwrap()
    return output


def names(output: dict[str, Any]) -> list[str]:
    return [entity["name"] for entity in output["entities"]]


@pytest.fixture
def dated(fresh_db: SqliteStore, ctx: CallContext) -> SqliteStore:
    """Three auth decisions, a month, ten days and one day before the question is asked."""
    for days, name, what in DATED:
        remember_at(fresh_db, ctx, ASKED - timedelta(days=days), name, f"auth decision: {what}")
    return fresh_db


# As long as each other, so their keyword scores tie (ties: newest first) and only the time can set them apart.
DATED = ((30, "auth-cookies", "cookies"), (10, "auth-keys", "keys"), (1, "auth-legacy", "legacy"))


@pytest.mark.parametrize("mode", ["fts", "broad"])
def test_since_and_until_keep_the_memories_created_in_that_time_in_every_mode(
    dated: SqliteStore, ctx: CallContext, monkeypatch: pytest.MonkeyPatch, mode: str
) -> None:
    monkeypatch.setenv("MEMESH_RECALL_MODE", mode)
    assert names(recall(dated, ctx, query="auth", since="yesterday")) == ["auth-legacy"]
    assert set(names(recall(dated, ctx, query="auth", since="2 weeks ago"))) == {"auth-keys", "auth-legacy"}
    assert names(recall(dated, ctx, query="auth", until="2023-09-30")) == ["auth-cookies"]
    window = recall(dated, ctx, query="auth", since="2023-10-01", until="2023-10-15")
    assert names(window) == ["auth-keys"]


def test_since_and_until_filter_the_listing_of_recent_memories_too(dated: SqliteStore, ctx: CallContext) -> None:
    assert names(recall(dated, ctx, since="last week", until="last week")) == ["auth-keys"]
    assert names(recall(dated, ctx, until="10 days ago")) == ["auth-keys", "auth-cookies"]


def test_a_time_filter_that_keeps_everything_changes_nothing(dated: SqliteStore, ctx: CallContext) -> None:
    def ranked(output: dict[str, Any]) -> list[tuple[str, float]]:
        return [(entity["name"], entity["match"]["relevance"]) for entity in output["entities"]]

    everything = recall(dated, ctx, query="auth decision", since="1970-01-01", until="2100-01-01")
    assert ranked(everything) == ranked(recall(dated, ctx, query="auth decision"))


@pytest.mark.parametrize(
    ("arguments", "field"),
    [
        ({"since": "whenever"}, "since"),
        ({"until": "next blue moon"}, "until"),
        ({"since": "2023-10-05", "until": "2023-10-01"}, "until"),
    ],
)
def test_a_bad_time_is_refused_with_its_field_and_nothing_is_counted(
    dated: SqliteStore, ctx: CallContext, arguments: dict[str, str], field: str
) -> None:
    error = call("recall", dated, {"query": "auth", **arguments}, ctx.at(ASKED)).failure()
    assert error.code is ErrorCode.BAD_BODY
    assert error.message.startswith(f"{field}: ")
    assert all(entity["access_count"] == 0 for entity in recall(dated, ctx)["entities"])


def test_broad_ranks_first_the_memory_dated_in_the_time_the_question_names(
    dated: SqliteStore, ctx: CallContext, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MEMESH_RECALL_MODE", "broad")
    output = recall(dated, ctx, query="which auth decision did we take 10 days ago?")
    assert names(output)[0] == "auth-keys"
    assert output["retrieval"]["time_window"] == {
        "expression": "10 days ago",
        "since": "2023-10-08",
        "until": "2023-10-12",
    }
    assert names(recall(dated, ctx, query="which auth decision did we take a month ago?"))[0] == "auth-cookies"
    assert "time_window" not in recall(dated, ctx, query="which auth decision did we take?")["retrieval"]


def test_a_date_tag_a_writer_gives_is_the_memory_s_time(
    fresh_db: SqliteStore, ctx: CallContext, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MEMESH_RECALL_MODE", "broad")
    remember_at(fresh_db, ctx, ASKED, "trip-b", "Calvin was in Tokyo with the band", ["date:2023-10-04"])
    remember_at(fresh_db, ctx, ASKED, "trip-a", "Calvin was in Boston with the band")  # newer: first on a tie
    output = recall(fresh_db, ctx, query="Which city was Calvin in on October 3, 2023?")
    assert names(output)[0] == "trip-b"
    assert output["retrieval"]["time_window"]["since"] == "2023-10-03"


def test_the_words_that_name_the_time_are_not_searched_for(
    fresh_db: SqliteStore, ctx: CallContext, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MEMESH_RECALL_MODE", "broad")
    remember_at(fresh_db, ctx, ASKED - timedelta(days=100), "days", "ten days of rain, days and days ago")
    remember_at(fresh_db, ctx, ASKED - timedelta(days=100), "grill", "bought a smoker for the kitchen")
    assert names(recall(fresh_db, ctx, query="kitchen 10 days ago")) == ["grill"]


def test_fts_reads_no_time_from_the_question(
    dated: SqliteStore, ctx: CallContext, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MEMESH_RECALL_MODE", "fts")
    output = recall(dated, ctx, query="auth decision yesterday")
    assert "time_window" not in output["retrieval"]
    # No memory holds all three words, so fts ORs them as the reference says: `yesterday` is a word like any other.
    assert set(names(output)) == {"auth-cookies", "auth-keys", "auth-legacy"}


QUESTION_WORDS = st.sampled_from(
    ["auth", "decision", "yesterday", "10", "days", "ago", "last", "week", "in", "March", "on", "October", "3",
     "2023", "what", "did", "we", "keys", "tokens", "?", "de", "il", "y", "a"]
)  # fmt: skip


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(QUESTION_WORDS, min_size=1, max_size=8))
def test_fts_answers_the_same_whatever_the_clock_says(
    dated_file: Path, tmp_path: Path, ctx: CallContext, monkeypatch: pytest.MonkeyPatch, words: list[str]
) -> None:
    monkeypatch.setenv("MEMESH_RECALL_MODE", "fts")
    query = " ".join(words)
    answers = []
    for shift in (timedelta(0), timedelta(days=400)):
        copy = tmp_path / f"copy-{shift.days}.db"
        shutil.copyfile(dated_file, copy)
        store = open_store(copy)
        try:
            output = call("recall", store, {"query": query}, ctx.at(ASKED + shift)).unwrap()
        finally:
            store.close()
            copy.unlink()
        assert "time_window" not in output["retrieval"]
        answers.append([(e["name"], e["match"]["relevance"]) for e in output["entities"]])
    assert answers[0] == answers[1]


@pytest.fixture
def dated_file(tmp_path: Path, ctx: CallContext) -> Path:
    """The `dated` memories in a SQLite file (copied per example: recall counts each access)."""
    path = tmp_path / "dated.db"
    store = open_store(path)
    try:
        for days, name, what in DATED:
            remember_at(store, ctx, ASKED - timedelta(days=days), name, f"auth decision: {what}")
    finally:
        store.close()
    return path
