"""A filter's text answers the same on both engines, whatever it holds: a NUL byte (which PostgreSQL's text cannot
carry, and which no stored text holds) matches nothing rather than failing the call as "the database cannot be
reached"."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from returns.result import Success

from memesh.app.operations import memory
from memesh.context import CallContext
from memesh.errors import ErrorCode
from memesh.store.errors import translate
from memesh.store.open import Store
from tests.backends import Backend
from tests.calls import call, run

# A NUL wherever it may stand, beside the stored tag's own letters and other text.
FILTER_TEXT = st.lists(st.sampled_from(["\x00", "a", "b", "ab", "x", "é", " ", ":"]), max_size=5).map(
    "".join
) | st.text(max_size=8)


@pytest.fixture
def stored(backend: Backend, tmp_path: Path, ctx: CallContext) -> Iterator[Store]:
    store = backend.open(tmp_path / "memory.db")
    remembered = call("remember", store, {"name": "ab", "type": "fact", "observations": ["x y"], "tags": ["ab"]}, ctx)
    assert isinstance(remembered, Success)
    yield store
    store.close()


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=FILTER_TEXT)
def test_a_tag_filter_of_any_text_answers_and_matches_only_the_tag_it_names(
    stored: Store, ctx: CallContext, text: str
) -> None:
    expected = ["ab"] if text in ("ab", "") else []  # an empty tag filters nothing
    for arguments in ({"query": "x", "tag": text}, {"tag": text}):
        answer = call("recall", stored, arguments, ctx)
        assert isinstance(answer, Success), answer
        assert [entity["name"] for entity in answer.unwrap()["entities"]] == expected


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=FILTER_TEXT)
def test_a_type_filter_of_any_text_answers_and_matches_only_the_type_it_names(
    stored: Store, ctx: CallContext, text: str
) -> None:
    answer = run(memory.ENTITIES, stored, {"type": text}, ctx)
    assert isinstance(answer, Success), answer
    assert [entity["name"] for entity in answer.unwrap()] == (["ab"] if text in ("fact", "") else [])


def test_a_nul_in_an_author_filter_matches_nothing_on_either_engine(stored: Store, ctx: CallContext) -> None:
    for arguments in ({"query": "x", "author": "a\x00b"}, {"author": "a\x00b"}):
        answer = call("recall", stored, arguments, ctx)
        assert isinstance(answer, Success) and answer.unwrap()["entities"] == [], answer


def test_a_nul_in_a_tag_filter_matches_nothing_on_either_engine(stored: Store, ctx: CallContext) -> None:
    answer = call("recall", stored, {"query": "x", "tag": "a\x00b"}, ctx)
    assert isinstance(answer, Success) and answer.unwrap()["entities"] == []


def test_a_value_the_postgresql_client_refuses_is_a_server_error_never_unreachable(pg_url: str) -> None:
    import psycopg

    with psycopg.connect(pg_url) as conn, pytest.raises(psycopg.DataError) as caught:
        conn.execute("SELECT %s::text", ("a\x00b",))
    error = translate(caught.value)
    assert error is not None and error.code is ErrorCode.INTERNAL and error.data["store"] == "database"
    assert not error.unavailable
