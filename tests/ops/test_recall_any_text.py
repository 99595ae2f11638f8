"""For any text at all, recall answers (possibly with nothing) and never raises: run against a real FTS5 index."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st
from returns.result import Success

from memesh.context import CallContext
from memesh.core.query import plan_match
from memesh.core.terms import query_terms
from memesh.store.sqlite import open_store
from memesh.store.sqlite_search import fts5_expressions, quote
from tests.calls import call

# FTS5 syntax, characters SQLite or JSON treat specially, scripts the tokenizer handles differently.
SPECIAL = [
    '"',
    "'",
    "\x00",
    "AND",
    "OR",
    "NOT",
    "NEAR",
    "NEAR(",
    "-",
    "+",
    ".",
    "*",
    "^",
    ":",
    "(",
    ")",
    "{",
    "}",
    "[",
    "]",
    "\\",
    "/",
    "%",
    "_",
    ";",
    "--",
    "認證方式",
    "方",
    "セッション",
    "인증",
    "🙂",
    "👨‍👩‍👧",
    "\ud800",
    "\udfff",
    "é",
    "ǅ",
    "\u200b",
    "\ufeff",
    " ",
    "\t",
    "\n",
    "col:",
    "name:",
    "title",
    "observations",
]
QUERY = st.lists(
    st.one_of(st.sampled_from(SPECIAL), st.text(max_size=8), st.characters(codec=None)),
    max_size=60,
).map("".join)


def test_recall_never_raises_for_any_query(tmp_path: Path) -> None:
    store = open_store(tmp_path / "fuzz.db")
    ctx = CallContext(source_host="fuzz", agent_view=True)
    seed = ["認證方式 uses sessions", "AND OR NOT NEAR are words here", 'quote " and star * and dash -', "emoji 🙂"]
    for n, text in enumerate(seed):
        request = {"name": f"m{n}", "type": "fact", "observations": [text]}
        assert isinstance(call("remember", store, request, ctx), Success)

    @settings(max_examples=300, deadline=None)
    @given(QUERY)
    def check(query: str) -> None:
        result = call("recall", store, {"query": query[:1000]}, ctx)
        assert isinstance(result, Success), result
        assert result.unwrap()["retrieval"]["mode"] == "fts"

    try:
        check()
    finally:
        store.close()


@settings(max_examples=300, deadline=None)
@given(QUERY)
def test_every_match_expression_is_made_of_quoted_terms_only(query: str) -> None:
    plan = plan_match(query, {}, 0)
    if plan is None:
        assert query_terms(query) == []
        return
    broad = fts5_expressions(plan)[-1]
    assert broad == " OR ".join(quote(term) for term in plan.terms)
    assert "\x00" not in broad
    assert len(plan.terms) <= 32
