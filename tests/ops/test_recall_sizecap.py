"""The agent-context size cap on recall: 8 KB per entity, 32 KB per response, only where agent_view is set."""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tests.conftest import Caller

ENTITY_BUDGET = 8 * 1024
RESPONSE_BUDGET = 32 * 1024


def _bytes(value: Any) -> int:
    return len(json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode())


def _content_bytes(entity: dict[str, Any]) -> int:
    return _bytes(entity["observations"]) + _bytes(entity["tags"])


def _remember(tools: Caller, name: str, observations: list[str], tags: list[str] | None = None) -> None:
    tools.ok("remember", {"name": name, "type": "fact", "observations": observations, "tags": tags or []})


def test_an_entity_over_8_kb_keeps_its_first_observations_and_reports_the_counts(
    tools: Caller, agent_tools: Caller
) -> None:
    observations = [f"obs {n} " + "a" * 990 for n in range(20)]
    _remember(tools, "big", observations, ["topic:x"])
    result = agent_tools.ok("recall", {"query": "big"})
    [entity] = result["entities"]
    shown = len(entity["observations"])
    assert 0 < shown < 20
    assert entity["observations"] == observations[:shown]
    assert entity["tags"] == ["topic:x"]
    assert entity["truncated"] == {"observations": {"shown": shown, "total": 20}}
    assert _content_bytes(entity) <= ENTITY_BUDGET
    assert result["truncated"] is True
    assert "entities_omitted" not in result


def test_without_agent_view_nothing_is_capped(tools: Caller) -> None:
    observations = [f"obs {n} " + "a" * 990 for n in range(20)]
    _remember(tools, "big", observations, ["topic:x", "file:src/app.py"])
    result = tools.ok("recall", {"query": "big"})
    [entity] = result["entities"]
    assert entity["observations"] == observations
    assert entity["tags"] == ["topic:x", "file:src/app.py"]
    assert "truncated" not in entity
    assert "truncated" not in result


def test_file_tags_are_always_hidden_from_the_agent_view(tools: Caller, agent_tools: Caller) -> None:
    _remember(tools, "small", ["tiny"], ["file:src/app.py", "topic:x", "file:README.md"])
    result = agent_tools.ok("recall", {"query": "tiny"})
    [entity] = result["entities"]
    assert entity["tags"] == ["topic:x"]
    assert "truncated" not in entity
    assert "truncated" not in result


def test_a_first_observation_larger_than_the_budget_is_cut_with_the_bytes_it_lost(
    tools: Caller, agent_tools: Caller
) -> None:
    text = "é" * 5_000 + "z" * 4_000  # 14,000 bytes of UTF-8
    _remember(tools, "huge", [text, "second"])
    [entity] = agent_tools.ok("recall", {"query": "huge"})["entities"]
    [cut] = entity["observations"]
    marker = re.fullmatch(r"(.*) … \(\+(\d+) more bytes\)", cut, re.DOTALL)
    assert marker is not None
    head, lost = marker.group(1), int(marker.group(2))
    assert text.startswith(head)
    assert len(head.encode()) + lost == len(text.encode())
    assert entity["truncated"] == {"observations": {"shown": 1, "total": 2}}
    assert _content_bytes(entity) <= ENTITY_BUDGET


def test_tags_are_packed_first_so_full_tags_leave_no_room_for_observations(tools: Caller, agent_tools: Caller) -> None:
    tags = [f"topic:{n:02d}-" + "t" * 200 for n in range(45)]  # ~9.5 KB of tags
    observation = "an observation that does not fit in what the tags leave " * 5
    _remember(tools, "tagged", [observation], tags)
    [entity] = agent_tools.ok("recall", {"query": "tagged"})["entities"]
    assert entity["observations"] == []
    kept = len(entity["tags"])
    assert entity["tags"] == tags[:kept]
    assert entity["truncated"] == {
        "observations": {"shown": 0, "total": 1},
        "tags": {"shown": kept, "total": 45},
    }
    assert _content_bytes(entity) <= ENTITY_BUDGET


def test_whole_entities_are_omitted_to_keep_the_response_within_32_kb(tools: Caller, agent_tools: Caller) -> None:
    for n in range(6):
        _remember(tools, f"bulk-{n}", [f"bulk entry {n} part {k} " + "b" * 1_000 for k in range(9)])
    result = agent_tools.ok("recall", {"query": "bulk"})
    shown = len(result["entities"])
    assert 0 < shown < 6
    assert result["truncated"] is True
    assert result["entities_omitted"] == {"shown": shown, "total": 6}
    assert result["retrieval"] == {"mode": "fts", "truncated": False}
    assert _bytes(result) <= RESPONSE_BUDGET
    assert all(_content_bytes(entity) <= ENTITY_BUDGET for entity in result["entities"])
    uncapped = tools.ok("recall", {"query": "bulk"})
    assert [e["name"] for e in uncapped["entities"][:shown]] == [e["name"] for e in result["entities"]]


def _without_access(result: dict[str, Any]) -> dict[str, Any]:
    hidden = {"access_count", "last_accessed_at"}
    entities = [{k: v for k, v in entity.items() if k not in hidden} for entity in result["entities"]]
    return {**result, "entities": entities}


def test_a_small_response_is_untouched_by_the_cap(tools: Caller, agent_tools: Caller) -> None:
    _remember(tools, "a", ["alpha"], ["topic:x"])
    _remember(tools, "b", ["alpha beta"], ["topic:y"])
    capped = agent_tools.ok("recall", {"query": "alpha"})
    assert _without_access(capped) == _without_access(tools.ok("recall", {"query": "alpha"}))
    assert "truncated" not in capped


def test_the_cap_also_applies_to_the_recent_listing(tools: Caller, agent_tools: Caller) -> None:
    _remember(tools, "big", [f"obs {n} " + "a" * 990 for n in range(20)], ["file:x.py"])
    [entity] = agent_tools.ok("recall", {})["entities"]
    assert entity["tags"] == []
    assert entity["truncated"]["observations"]["total"] == 20


def test_a_conflict_is_named_only_while_both_of_its_memories_are_returned(tools: Caller, agent_tools: Caller) -> None:
    for n in range(6):
        _remember(tools, f"bulk-{n}", [f"bulk entry {n} part {k} " + "b" * 1_000 for k in range(9)])
    for source, target in [("bulk-1", "bulk-0"), ("bulk-5", "bulk-4")]:
        relation = {"to": target, "type": "contradicts"}
        tools.ok("remember", {"name": source, "type": "fact", "relations": [relation]})
    uncapped = tools.ok("recall", {"query": "bulk"})
    assert uncapped["conflicts"] == ['"bulk-1" contradicts "bulk-0"', '"bulk-5" contradicts "bulk-4"']
    result = agent_tools.ok("recall", {"query": "bulk"})
    returned = {entity["name"] for entity in result["entities"]}
    expected = [
        f'"{a}" contradicts "{b}"' for a, b in [("bulk-1", "bulk-0"), ("bulk-5", "bulk-4")] if {a, b} <= returned
    ]
    assert result["entities_omitted"]["shown"] < 6
    assert result.get("conflicts", []) == expected
    assert ("conflicts" in result) == bool(expected)
