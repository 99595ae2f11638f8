"""recall's query rules, run against a real FTS5 index: OR vs strict AND, the noise guard, the 32-term cap,
word splitting and CJK."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest

from memesh.core.query import plan_match

if TYPE_CHECKING:
    from tests.conftest import Caller


def _names(result: dict[str, Any]) -> list[str]:
    return sorted(entity["name"] for entity in result["entities"])


def _first(result: dict[str, Any]) -> str:
    return str(result["entities"][0]["name"])


def _fact(tools: Caller, name: str, text: str) -> None:
    tools.ok("remember", {"name": name, "type": "fact", "observations": [text]})


def test_a_one_term_query_finds_every_memory_with_it(tools: Caller) -> None:
    _fact(tools, "a", "kettle boils")
    _fact(tools, "b", "kettle whistles")
    _fact(tools, "c", "toaster pops")
    assert _names(tools.ok("recall", {"query": "kettle"})) == ["a", "b"]


def test_a_two_term_query_matches_either_term(tools: Caller) -> None:
    _fact(tools, "a", "kettle boils")
    _fact(tools, "b", "toaster pops")
    _fact(tools, "c", "fridge hums")
    assert _names(tools.ok("recall", {"query": "kettle toaster"})) == ["a", "b"]


def test_three_terms_match_strictly_when_some_memory_has_all_of_them(tools: Caller) -> None:
    _fact(tools, "all", "kettle toaster fridge together")
    _fact(tools, "one", "kettle alone")
    _fact(tools, "two", "kettle and toaster")
    assert _names(tools.ok("recall", {"query": "kettle toaster fridge"})) == ["all"]


def test_three_terms_fall_back_to_or_when_no_memory_has_all_of_them(tools: Caller) -> None:
    _fact(tools, "one", "kettle alone")
    _fact(tools, "two", "kettle and toaster")
    _fact(tools, "none", "unrelated text")
    assert _names(tools.ok("recall", {"query": "kettle toaster fridge"})) == ["one", "two"]


def test_punctuation_inside_a_word_splits_it(tools: Caller) -> None:
    _fact(tools, "k", "the kitchen is warm")
    assert _names(tools.ok("recall", {"query": "kitchen's"})) == ["k"]
    assert _names(tools.ok("recall", {"query": "kitchen-sink"})) == ["k"]


def test_case_and_diacritics_do_not_matter(tools: Caller) -> None:
    _fact(tools, "c", "Café Résumé")
    assert _names(tools.ok("recall", {"query": "cafe resume"})) == ["c"]
    assert _names(tools.ok("recall", {"query": "CAFÉ"})) == ["c"]


@pytest.mark.parametrize("query", ["???", "@#$%", "...", "-", '"', "*", "   ", "\t\n"])
def test_a_query_with_nothing_searchable_returns_nothing(tools: Caller, query: str) -> None:
    _fact(tools, "m", "anything at all")
    assert tools.ok("recall", {"query": query}) == {"entities": [], "retrieval": {"mode": "fts", "truncated": False}}


def _seed_common(tools: Caller, rows: int, *, rare: bool = True) -> None:
    for n in range(rows):
        _fact(tools, f"row{n:02d}", f"common filler {'frequent' if n % 3 else 'scarce'} entry {n}")
    if rare:
        _fact(tools, "rare-one", "common unusual")


def test_a_term_in_more_than_half_of_25_or_more_rows_is_dropped(tools: Caller) -> None:
    _seed_common(tools, 29)
    # "common" is in all 30 rows: dropped, so the query is "unusual" alone.
    assert _names(tools.ok("recall", {"query": "common unusual", "limit": 100})) == ["rare-one"]
    plan = plan_match("common unusual", tools.store.doc_freq(["common", "unusual"]), tools.store.count())
    assert plan is not None
    assert plan.terms == ("unusual",)
    assert plan.dropped == ("common",)


def test_a_query_made_only_of_common_terms_keeps_the_rarest(tools: Caller) -> None:
    _seed_common(tools, 29)
    # Both are in more than half of the 30 rows; "frequent" (19 rows) is rarer than "common" (30).
    result = tools.ok("recall", {"query": "common frequent", "limit": 100})
    assert len(result["entities"]) == 19
    assert all("frequent" in entity["observations"][0] for entity in result["entities"])


def test_the_noise_guard_does_not_apply_below_25_rows(tools: Caller) -> None:
    _seed_common(tools, 23)
    # 24 rows: "common" is the subject here, not a stopword, so OR still matches every row.
    assert len(tools.ok("recall", {"query": "common unusual", "limit": 100})["entities"]) == 24


def test_only_the_first_32_surviving_terms_are_used(tools: Caller) -> None:
    words = [f"w{n:02d}x" for n in range(40)]
    _fact(tools, "has-32nd", f"mentions {words[31]} only")
    _fact(tools, "has-33rd", f"mentions {words[32]} only")
    assert _names(tools.ok("recall", {"query": " ".join(words)})) == ["has-32nd"]


def test_dropped_common_terms_do_not_count_toward_the_32(tools: Caller) -> None:
    _seed_common(tools, 29)
    _fact(tools, "tail", "mentions zz31 here")
    query = "common filler entry " + " ".join(f"zz{n:02d}" for n in range(32))
    # zz31 is the 35th word: only because common/filler/entry are dropped first is it among the 32 used.
    assert _names(tools.ok("recall", {"query": query, "limit": 100})) == ["tail"]


def test_a_chinese_question_finds_its_memory(tools: Caller) -> None:
    _fact(tools, "zh", "我們的認證方式改用伺服器端工作階段")
    _fact(tools, "other", "部署流程使用藍綠發布")
    assert _names(tools.ok("recall", {"query": "認證方式是什麼？"})) == ["zh"]


def test_a_japanese_question_finds_its_memory(tools: Caller) -> None:
    _fact(tools, "ja", "認証方式はセッションに変更した")
    _fact(tools, "other", "デプロイはブルーグリーン方式")
    assert _first(tools.ok("recall", {"query": "認証方式は何ですか"})) == "ja"
    assert _names(tools.ok("recall", {"query": "セッション"})) == ["ja"]


def test_a_korean_question_finds_its_memory(tools: Caller) -> None:
    _fact(tools, "ko", "인증 방식은 서버 세션을 사용합니다")
    _fact(tools, "other", "배포는 블루그린 방식입니다")
    assert _first(tools.ok("recall", {"query": "인증 방식은 무엇인가요?"})) == "ko"
    assert _names(tools.ok("recall", {"query": "세션"})) == ["ko"]


def test_a_single_cjk_character_matches_as_a_prefix(tools: Caller) -> None:
    _fact(tools, "zh", "認證方式")
    assert _names(tools.ok("recall", {"query": "認"})) == ["zh"]


def test_the_title_and_name_are_searchable(tools: Caller) -> None:
    tools.ok("remember", {"name": "kafka-decision", "type": "fact", "title": "Queue choice", "observations": ["x"]})
    assert _names(tools.ok("recall", {"query": "kafka"})) == ["kafka-decision"]
    assert _names(tools.ok("recall", {"query": "queue"})) == ["kafka-decision"]


def test_fts_syntax_in_a_query_is_searched_as_plain_words(tools: Caller) -> None:
    _fact(tools, "m", "near and not or")
    for query in ('"near"', "near AND not", "NOT near", "near OR", "(near)", "near*", "-near", "+near", "col:near"):
        assert _names(tools.ok("recall", {"query": query})) == ["m"], query


def test_a_query_finds_other_forms_of_its_words(tools: Caller) -> None:
    _fact(tools, "trip", "We went camping by the lakes")
    _fact(tools, "other", "Stayed home")
    assert _names(tools.ok("recall", {"query": "camped"})) == ["trip"]
    assert _names(tools.ok("recall", {"query": "lake camps"})) == ["trip"]


def test_strict_matching_accepts_any_form_of_each_term(tools: Caller) -> None:
    _fact(tools, "forms", "she supported the volunteers who were painting")
    _fact(tools, "partial", "painting only")
    assert _names(tools.ok("recall", {"query": "supports volunteering paints"})) == ["forms"]


def test_the_noise_guard_counts_a_term_by_its_stem(tools: Caller) -> None:
    for n in range(29):
        _fact(tools, f"row{n:02d}", f"{'supported' if n % 2 else 'supporting'} entry {n}")
    _fact(tools, "rare-one", "supporter unusual")
    # "supports" occurs nowhere as written, but its stem is in every row: it is noise.
    plan = plan_match("supports unusual", tools.store.doc_freq(["supports", "unusual"]), tools.store.count())
    assert plan is not None
    assert plan.dropped == ("supports",)
    assert _names(tools.ok("recall", {"query": "supports unusual", "limit": 100})) == ["rare-one"]


def test_a_pasted_page_of_text_is_a_query_its_first_surviving_terms_answer(tools: Caller) -> None:
    for index in range(30):
        _fact(tools, f"filler-{index}", f"the build log line {index}")
    _fact(tools, "target", "segfault in the kernel module loader")
    page = "the " * 5000 + "segfault kernel loader " + " ".join(f"word{n}" for n in range(3000))
    assert len(page) > 20_000
    assert _first(tools.ok("recall", {"query": page})) == "target"


def test_only_an_empty_or_absent_query_lists_recent_memories(tools: Caller) -> None:
    _fact(tools, "m", "anything at all")
    assert _names(tools.ok("recall", {"query": ""})) == ["m"]
    assert _names(tools.ok("recall", {})) == ["m"]
