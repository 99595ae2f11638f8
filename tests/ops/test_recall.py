"""recall: the envelope, provenance of matches, access tracking, filters, limits and ordering."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest

from memesh.errors import ErrorCode

if TYPE_CHECKING:
    from tests.conftest import Caller


def _names(result: dict[str, Any]) -> list[str]:
    return [entity["name"] for entity in result["entities"]]


def _fact(tools: Caller, name: str, text: str, **extra: Any) -> None:
    tools.ok("remember", {"name": name, "type": "fact", "observations": [text], **extra})


def test_a_query_result_carries_keyword_provenance_with_relevance_in_0_to_1(tools: Caller) -> None:
    for n in range(5):
        _fact(tools, f"m{n}", f"database migration step {n}")
    result = tools.ok("recall", {"query": "migration"})
    assert len(result["entities"]) == 5
    for entity in result["entities"]:
        assert entity["match"]["source"] == "keyword"
        assert 0 < entity["match"]["relevance"] <= 1


def test_the_envelope_states_fts_retrieval(tools: Caller) -> None:
    _fact(tools, "m", "alpha")
    assert tools.ok("recall", {"query": "alpha"})["retrieval"] == {"mode": "fts", "truncated": False}
    assert tools.ok("recall", {})["retrieval"] == {"mode": "fts", "truncated": False}
    assert tools.ok("recall", {"query": "nothing-like-it"}) == {
        "entities": [],
        "retrieval": {"mode": "fts", "truncated": False},
    }


def test_retrieval_is_truncated_when_the_results_fill_the_limit(tools: Caller) -> None:
    for n in range(3):
        _fact(tools, f"m{n}", "shared word")
    assert tools.ok("recall", {"query": "shared", "limit": 2})["retrieval"]["truncated"] is True
    assert tools.ok("recall", {"query": "shared", "limit": 3})["retrieval"]["truncated"] is True
    assert tools.ok("recall", {"query": "shared", "limit": 4})["retrieval"]["truncated"] is False


def test_no_query_lists_recent_memories_newest_first_without_match(tools: Caller) -> None:
    for n in range(3):
        _fact(tools, f"m{n}", f"text {n}")
    result = tools.ok("recall", {})
    assert _names(result) == ["m2", "m1", "m0"]
    assert all("match" not in entity for entity in result["entities"])
    assert _names(tools.ok("recall", {"query": ""})) == ["m2", "m1", "m0"]


def test_an_entity_is_returned_in_the_documented_shape(tools: Caller) -> None:
    tools.ok(
        "remember",
        {"name": "auth", "type": "decision", "title": "Why JWT", "observations": ["Chose JWT"], "tags": ["p:x"]},
    )
    [entity] = tools.ok("recall", {"query": "JWT"})["entities"]
    assert entity["name"] == "auth"
    assert entity["title"] == "Why JWT"
    assert entity["type"] == "decision"
    assert entity["namespace"] == "personal"
    assert entity["created_at"] == "2026-11-30 12:00:00"
    assert entity["observations"] == ["Chose JWT"]
    assert entity["tags"] == ["p:x"]
    assert entity["relations"] == []
    assert entity["metadata"]["provenance"]["source_host"] == "test-host"
    assert isinstance(entity["id"], int)


def test_recall_counts_each_access(tools: Caller) -> None:
    _fact(tools, "m", "tracked")
    counts = [tools.ok("recall", {"query": "tracked"})["entities"][0]["access_count"] for _ in range(3)]
    assert counts == [0, 1, 2]
    entity = tools.store.find("m")
    assert entity is not None
    assert entity.access_count == 3
    assert entity.last_accessed_at == "2026-11-30T12:00:00.000Z"


def test_only_returned_memories_are_counted(tools: Caller) -> None:
    _fact(tools, "hit", "apples")
    _fact(tools, "miss", "pears")
    tools.ok("recall", {"query": "apples"})
    miss = tools.store.find("miss")
    assert miss is not None
    assert miss.access_count == 0


def test_the_same_query_returns_the_same_order_every_time(tools: Caller) -> None:
    for n in range(12):
        _fact(tools, f"m{n:02d}", "deploy " * (n % 4 + 1) + f"service number {n}")
    orders = [_names(tools.ok("recall", {"query": "deploy service"})) for _ in range(4)]
    assert len(orders[0]) == 12
    assert all(order == orders[0] for order in orders)


def test_bm25_ties_break_by_recency(tools: Caller) -> None:
    # Same text, names of the same token count: equal BM25, so the newer memory leads.
    _fact(tools, "tie-bravo", "identical zebra sentence")
    _fact(tools, "tie-alpha", "identical zebra sentence")
    _fact(tools, "tie-delta", "identical zebra sentence")
    assert _names(tools.ok("recall", {"query": "zebra"})) == ["tie-delta", "tie-alpha", "tie-bravo"]


def test_tag_filters_results(tools: Caller) -> None:
    _fact(tools, "a", "cache layer", tags=["project:a"])
    _fact(tools, "b", "cache layer", tags=["project:b"])
    assert _names(tools.ok("recall", {"query": "cache", "tag": "project:a"})) == ["a"]
    assert _names(tools.ok("recall", {"tag": "project:b"})) == ["b"]


def test_namespace_filters_results(tools: Caller) -> None:
    _fact(tools, "p", "shared words")
    _fact(tools, "t", "shared words", namespace="team")
    assert _names(tools.ok("recall", {"query": "shared", "namespace": "team"})) == ["t"]
    assert _names(tools.ok("recall", {"namespace": "personal"})) == ["p"]


def test_cross_project_lifts_the_tag_and_namespace_filters(tools: Caller) -> None:
    _fact(tools, "a", "cache layer", tags=["project:a"])
    _fact(tools, "b", "cache layer", tags=["project:b"], namespace="global")
    result = tools.ok("recall", {"query": "cache", "tag": "project:a", "namespace": "personal", "cross_project": True})
    assert sorted(_names(result)) == ["a", "b"]


def test_cross_project_keeps_a_tag_filter_that_is_not_a_project_tag(tools: Caller) -> None:
    _fact(tools, "a", "cache layer", tags=["project:a", "topic:db"])
    _fact(tools, "b", "cache layer", tags=["project:b", "topic:ui"], namespace="global")
    result = tools.ok("recall", {"query": "cache", "tag": "topic:db", "cross_project": True})
    assert _names(result) == ["a"]


def test_archived_memories_are_hidden_unless_asked_for(tools: Caller) -> None:
    _fact(tools, "kept", "retention policy")
    _fact(tools, "gone", "retention policy")
    tools.ok("forget", {"name": "gone"})
    assert _names(tools.ok("recall", {"query": "retention"})) == ["kept"]
    found = tools.ok("recall", {"query": "retention", "include_archived": True})["entities"]
    assert sorted(e["name"] for e in found) == ["gone", "kept"]
    assert [e.get("archived") for e in found if e["name"] == "gone"] == [True]
    assert "archived" not in next(e for e in found if e["name"] == "kept")


def test_limit_defaults_to_20(tools: Caller) -> None:
    for n in range(25):
        _fact(tools, f"m{n}", "bulk text")
    assert len(tools.ok("recall", {"query": "bulk"})["entities"]) == 20
    assert len(tools.ok("recall", {})["entities"]) == 20
    assert len(tools.ok("recall", {"limit": 100})["entities"]) == 25


def test_limit_caps_the_results(tools: Caller) -> None:
    for n in range(5):
        _fact(tools, f"m{n}", "bulk text")
    assert len(tools.ok("recall", {"query": "bulk", "limit": 1})["entities"]) == 1
    assert len(tools.ok("recall", {"limit": 3})["entities"]) == 3


@pytest.mark.parametrize("limit", [0, 101, -1, 2.5, "5", True])
def test_a_limit_outside_1_to_100_is_refused_naming_limit(tools: Caller, limit: object) -> None:
    error = tools.fails("recall", {"limit": limit})
    assert error.code == ErrorCode.BAD_BODY
    assert error.message.startswith("limit: ")


def test_a_whole_float_limit_is_accepted_as_an_integer(tools: Caller) -> None:
    for n in range(3):
        _fact(tools, f"m{n}", "x")
    assert len(tools.ok("recall", {"limit": 2.0})["entities"]) == 2


def test_an_exact_name_match_leads_the_results(tools: Caller) -> None:
    for n in range(4):
        _fact(tools, f"other-{n}", "payments payments payments retry")
    _fact(tools, "payments", "the service")
    assert _names(tools.ok("recall", {"query": "payments"}))[0] == "payments"


def test_replaced_history_is_summarized_as_a_count(tools: Caller) -> None:
    _fact(tools, "m", "first")
    tools.ok("remember", {"name": "m", "replace": True, "observations": ["second"]})
    tools.ok("remember", {"name": "m", "replace": True, "observations": ["third"]})
    [entity] = tools.ok("recall", {"query": "third"})["entities"]
    assert entity["metadata"]["replaced_history_count"] == 2
    assert "replaced_history" not in entity["metadata"]


def test_an_unknown_recall_key_is_refused_with_its_name(tools: Caller) -> None:
    error = tools.fails("recall", {"query": "x", "mode": "vector"})
    assert error.code == ErrorCode.BAD_BODY
    assert error.message == "mode: Unrecognized key"


def test_relevance_is_the_share_of_the_best_match(tools: Caller) -> None:
    _fact(tools, "strong", "zebra zebra zebra")
    _fact(tools, "weak", "a zebra among " + " ".join(f"word{n}" for n in range(30)))
    _fact(tools, "none", "horses")
    [first, second] = tools.ok("recall", {"query": "zebra"})["entities"]
    assert (first["name"], first["match"]["relevance"]) == ("strong", 1.0)
    assert second["name"] == "weak"
    assert 0 < second["match"]["relevance"] < 0.5


def test_a_memory_recalled_before_leads_an_equal_match(tools: Caller) -> None:
    _fact(tools, "seen", "identical okapi sentence")
    _fact(tools, "unseen", "identical okapi sentence")
    assert _names(tools.ok("recall", {"query": "okapi"})) == ["unseen", "seen"]  # equal BM25: newest first
    tools.ok("recall", {"query": "seen"})
    assert _names(tools.ok("recall", {"query": "okapi"})) == ["seen", "unseen"]


def test_one_earlier_recall_does_not_lift_a_much_weaker_match_over_a_strong_one(tools: Caller) -> None:
    _fact(tools, "strong", "zebra zebra zebra")
    _fact(tools, "weak", "a zebra among " + " ".join(f"word{n}" for n in range(60)))
    _fact(tools, "none", "horses")
    tools.ok("recall", {"query": "word7"})
    assert _names(tools.ok("recall", {"query": "zebra"})) == ["strong", "weak"]
