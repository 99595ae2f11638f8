"""Query building as a pure function: terms, the noise guard, the 32-term cap, OR vs strict AND, quoting."""

from __future__ import annotations

import re
import unicodedata

from hypothesis import given, settings
from hypothesis import strategies as st

from memesh.core.query import drop_noise, is_prefix, plan_match, plan_terms
from memesh.core.terms import query_terms, segment
from memesh.store.sqlite_search import fts5_expressions, quote


def test_one_and_two_terms_are_ored_with_no_strict_pass() -> None:
    for query, broad in (("alpha", '"alpha"'), ("alpha beta", '"alpha" OR "beta"')):
        plan = plan_match(query, {}, 0)
        assert plan is not None
        assert not plan.strict
        assert plan.modes == ("any",)
        assert fts5_expressions(plan) == (broad,)


def test_three_terms_try_strict_and_first_then_or() -> None:
    plan = plan_match("alpha beta gamma", {}, 0)
    assert plan is not None
    assert plan.modes == ("all", "any")
    assert fts5_expressions(plan) == ('"alpha" AND "beta" AND "gamma"', '"alpha" OR "beta" OR "gamma"')


def test_terms_are_folded_deduplicated_and_kept_in_query_order() -> None:
    assert query_terms("Zebra café ZEBRA Cafe kitchen's") == ["zebra", "cafe", "kitchen", "s"]


def test_underscore_and_punctuation_split_words() -> None:
    assert query_terms("snake_case dotted.name a-b") == ["snake", "case", "dotted", "name", "a", "b"]


def test_cjk_runs_become_bigrams() -> None:
    assert query_terms("認證方式") == ["認證", "證方", "方式"]
    assert segment("用JWT認證").split() == ["用", "JWT", "認證"]


def test_nothing_searchable_plans_nothing() -> None:
    for query in ("???", "@#$%", "", "   ", "\x00", "—"):
        assert plan_match(query, {}, 0) is None, query


def test_quote_doubles_inner_quotes_and_strips_nul() -> None:
    assert quote('say "hi"') == '"say ""hi"""'
    assert quote("a\x00b") == '"ab"'


def test_a_single_cjk_character_is_a_prefix_term() -> None:
    assert is_prefix("認") and not is_prefix("認證") and not is_prefix("a")
    assert quote("認") == '"認"*'
    assert quote("a") == '"a"'


def test_noise_guard_drops_terms_in_more_than_half_the_rows() -> None:
    kept, dropped = drop_noise(["the", "cache", "is"], {"the": 26, "cache": 3, "is": 14}, 27)
    assert kept == ["cache"]
    assert dropped == ["the", "is"]


def test_a_term_in_exactly_half_the_rows_is_kept() -> None:
    kept, _ = drop_noise(["half", "rare"], {"half": 15, "rare": 1}, 30)
    assert kept == ["half", "rare"]


def test_an_all_common_query_keeps_its_rarest_term() -> None:
    kept, dropped = drop_noise(["the", "is", "a"], {"the": 30, "is": 20, "a": 25}, 30)
    assert kept == ["is"]
    assert dropped == ["the", "a"]


def test_the_noise_guard_is_off_below_25_rows() -> None:
    kept, dropped = drop_noise(["the", "cache"], {"the": 24, "cache": 1}, 24)
    assert kept == ["the", "cache"]
    assert dropped == []


def test_a_single_term_is_never_dropped() -> None:
    assert drop_noise(["the"], {"the": 100}, 100) == (["the"], [])


def test_only_the_first_32_surviving_terms_are_used() -> None:
    words = [f"w{n}" for n in range(40)]
    plan = plan_match(" ".join(words), {}, 0)
    assert plan is not None
    assert plan.terms == tuple(words[:32])


def test_common_terms_are_dropped_before_the_cap() -> None:
    words = ["the", *[f"w{n}" for n in range(32)]]
    plan = plan_match(" ".join(words), {"the": 90}, 100)
    assert plan is not None
    assert plan.terms == tuple(words[1:])
    assert plan.dropped == ("the",)


class _Counting(dict[str, int]):
    """Document frequencies that remember which terms were read."""

    def __init__(self, values: dict[str, int]) -> None:
        super().__init__(values)
        self.read: list[str] = []

    def get(self, key: str, default: int | None = None) -> int | None:  # type: ignore[override]
        self.read.append(key)
        return super().get(key, default)


def test_terms_after_the_32nd_survivor_are_never_counted() -> None:
    words = ["the", *[f"w{n}" for n in range(500)]]
    freq = _Counting({"the": 90})
    plan = plan_match(" ".join(words), freq, 100)
    assert plan is not None
    assert plan.terms == tuple(words[1:33])
    assert plan.dropped == ("the",)
    assert freq.read == words[:33]


def test_an_all_common_query_keeps_its_rarest_term_however_long() -> None:
    words = [f"c{n}" for n in range(40)]
    plan = plan_match(" ".join(words), {word: 90 - index for index, word in enumerate(words)}, 100)
    assert plan is not None
    assert plan.terms == ("c39",)
    assert len(plan.dropped) == 39


def _terms_word_by_word(query: str) -> list[str]:
    """The tokenizer's rule spelled out slowly: every word's CJK runs rewritten, every piece fully normalised."""
    seen: dict[str, None] = {}
    for word in re.findall(r"[^\W_]+", query):
        for piece in segment(word).split():
            decomposed = unicodedata.normalize("NFD", piece.lower())
            kept = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
            seen.setdefault(unicodedata.normalize("NFC", kept), None)
    return list(seen)


_TRICKY = st.sampled_from(
    ["e\u0301", "\u0130", "\u212a", "ß", "ﬁ", "認證", "方式", "한국", "カ・ナ", "ー", "々", "⺁", "_", "-"]
)


@settings(max_examples=500)
@given(st.lists(st.one_of(st.text(max_size=8), _TRICKY), max_size=8).map(" ".join))
def test_the_one_pass_finds_exactly_the_terms_of_the_word_by_word_rule(query: str) -> None:
    assert query_terms(query) == _terms_word_by_word(query)


def test_a_plan_from_the_terms_is_the_plan_from_the_text() -> None:
    query = "How did Melanie feel about her family supporting her? 認證方式"
    freq = {"how": 80, "did": 70, "her": 90}
    assert plan_terms(query_terms(query), freq, 100) == plan_match(query, freq, 100)
    assert plan_terms([], freq, 100) is None
