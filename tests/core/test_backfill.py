"""The backfill rules as plain values: which edges each proposes, and what it never links."""

from __future__ import annotations

from typing import Any

from memesh.core.backfill import Options, name_tokens, plan, topical
from memesh.model import Entity


def _entity(entity_id: int, name: str, entity_type: str, tags: list[str], **metadata: Any) -> Entity:
    return Entity(
        id=entity_id,
        name=name,
        type=entity_type,
        title=None,
        namespace="personal",
        status="active",
        created_at=f"2026-11-{10 + entity_id:02d} 10:00:00",
        metadata=metadata,
        tags=tags,
    )


def _edges(entities: list[Entity], options: Options, existing: set[tuple[int, int, str]] | None = None) -> set[Any]:
    existing = existing or set()
    linked = {end for a, b, _ in existing for end in (a, b)}
    return {(e.from_id, e.to_id, e.type) for e in plan(entities, linked, set(existing), set(), options).edges}


def test_noise_and_scope_tags_are_not_topics() -> None:
    assert topical(["project:p", "session:s", "commit", "auto_saved", "topic:db", "Cache"]) == {"topic:db", "cache"}


def test_session_cooccurrence_links_only_high_signal_orphans_when_asked() -> None:
    entities = [
        _entity(1, "a", "decision", ["project:p", "session:s"], signal_score=0.9),
        _entity(2, "b", "lesson_learned", ["project:p", "session:s"], signal_score=0.8),
        _entity(3, "c", "decision", ["project:p", "session:s"], signal_score=0.3),
    ]
    options = Options(evidence_links=False)
    assert _edges(entities, options) == set()
    with_rule = _edges(entities, Options(evidence_links=False, session_cooccurrence=True))
    assert (1, 2, "co-created") in with_rule
    assert not any(3 in (a, b) for a, b, kind in with_rule if kind == "co-created")


def test_two_high_signal_orphans_of_one_session_get_one_co_created_edge() -> None:
    entities = [
        _entity(1, "a", "decision", ["project:p", "session:s"], signal_score=0.9),
        _entity(2, "b", "decision", ["project:p", "session:s"], signal_score=0.9),
    ]
    edges = _edges(entities, Options(evidence_links=False, session_cooccurrence=True))
    assert edges == {(1, 2, "co-created")}


def test_tag_cooccurrence_needs_a_shared_project_tag_unless_neither_has_one() -> None:
    topics = ["topic:db", "topic:cache"]
    entities = [
        _entity(1, "a", "note", ["project:p", *topics]),
        _entity(2, "b", "note", ["project:p", "project:q", *topics]),
        _entity(3, "c", "note", ["project:r", *topics]),
        _entity(4, "d", "note", [*topics]),
        _entity(5, "e", "note", [*topics]),
    ]
    edges = _edges(entities, Options(evidence_links=False))
    assert edges == {(1, 2, "related-to"), (4, 5, "related-to")}


def test_name_tokens_link_orphans_whose_names_share_words() -> None:
    assert name_tokens("Auth-token refresh in the API (Nov)") == {"auth", "token", "refresh", "api"}
    entities = [
        _entity(1, "auth-token-refresh-flow", "note", []),
        _entity(2, "auth-token-refresh-bug", "note", []),
        _entity(3, "database-migration", "note", []),
    ]
    edges = _edges(entities, Options(evidence_links=False, name_tokens=True))
    assert (1, 2, "shares-name-tokens") in edges
    assert not any(3 in (a, b) for a, b, _ in edges)


def test_memories_already_related_are_not_orphans() -> None:
    tags = ["project:p", "topic:a", "topic:b"]
    entities = [_entity(1, "a", "note", tags), _entity(2, "b", "note", tags)]
    assert _edges(entities, Options(evidence_links=False), existing={(1, 2, "related-to")}) == set()


def test_a_commit_with_no_session_match_supports_the_latest_earlier_work_item_of_its_project() -> None:
    entities = [
        _entity(1, "older-fix", "bug_fix", ["project:p"]),
        _entity(2, "newer-fix", "bug_fix", ["project:p"]),
        _entity(3, "commit-x", "commit", ["project:p"]),
        _entity(4, "later-fix", "bug_fix", ["project:p"]),
    ]
    edges = _edges(entities, Options())
    assert (3, 2, "evidences") in edges
    assert (3, 4, "evidences") not in edges
