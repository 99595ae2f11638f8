"""`kg backfill-relations` as pure decisions: which edges the five heuristic rules propose, given the memories.

No rule infers causality and none calls a model: every edge names the rule that made it, so a person reading the
graph can tell a stated relation from a backfilled one.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import field
from typing import Final

from memesh.model import Entity
from memesh.records import dataclass

NOISE_TAGS: Final = frozenset(
    {
        "session_end",
        "session-end",
        "auto_saved",
        "auto-saved",
        "auto_capture",
        "auto-capture",
        "commit",
        "completed",
        "lesson",
        "lesson_learned",
        "mistake",
        "summary",
        "session",
        "hook",
        "note",
        "todo",
        "wip",
    }
)
# Tags that name a scope, a source or a state, never a topic.
NON_TOPICAL_PREFIXES: Final = (
    "project:",
    "session:",
    "file:",
    "date:",
    "source:",
    "status:",
    "priority:",
    "signal:",
    "type:",
    "implementation:",
    "outcome:",
    "scope:",
)
ANCHOR_TYPES: Final = ("release", "feature", "architecture", "plan")
CLUSTERED_TYPES: Final = frozenset({"lesson_learned", "decision", "bug_fix", "pattern"})
SESSION_TYPES: Final = frozenset(
    {"lesson_learned", "decision", "architecture", "feature", "bug_fix", "pattern", "plan", "release", "fact"}
)
EVIDENCE_TYPES: Final = frozenset({"commit", "session-insight", "session_summary", "session-summary"})
WORK_TYPES: Final = frozenset(
    {"decision", "lesson_learned", "bug_fix", "feature", "pattern", "architecture", "plan", "release", "fact"}
)
STOPWORDS: Final = frozenset(
    {
        "the", "and", "for", "with", "from", "into", "over", "when", "that", "this", "new", "old", "fix", "add",
        "use", "via", "not", "all", "any", "session", "summary", "notes", "note", "update", "updated", "jan", "feb",
        "mar", "apr", "may", "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec", "v2", "v3",
    }
)  # fmt: skip
SESSION_COOCCURRENCE_MIN_SIGNAL = 0.6
_TOKEN = re.compile(r"[a-z0-9]+")


@dataclass(frozen=True)
class Options:
    project: str | None = None
    max_per_source: int = 3
    min_shared_tags: int = 2
    session_cooccurrence: bool = False
    name_tokens: bool = False
    min_jaccard: float = 0.5
    evidence_links: bool = True


@dataclass(frozen=True)
class Edge:
    from_id: int
    to_id: int
    type: str
    rule: str


@dataclass
class Plan:
    edges: list[Edge] = field(default_factory=list)
    considered: list[int] = field(default_factory=list)  # orphans looked at by rules 1-4 (the idempotency set)

    def add(self, edge: Edge, existing: set[tuple[int, int, str]], *, undirected: bool = False) -> bool:
        """Plan `edge` unless it (or, for an `undirected` kind, the same edge the other way) is already there."""
        key = (edge.from_id, edge.to_id, edge.type)
        if edge.from_id == edge.to_id or key in existing:
            return False
        if undirected and (edge.to_id, edge.from_id, edge.type) in existing:
            # related-to, co-created and shares-name-tokens say the same thing both ways: when two orphans find each
            # other, the one considered first holds the pair's only edge.
            return False
        existing.add(key)
        self.edges.append(edge)
        return True


def topical(tags: Iterable[str]) -> set[str]:
    return {
        tag.lower()
        for tag in tags
        if tag.lower() not in NOISE_TAGS and not tag.lower().startswith(NON_TOPICAL_PREFIXES)
    }


def projects(entity: Entity) -> frozenset[str]:
    return frozenset(tag[len("project:") :] for tag in entity.tags if tag.startswith("project:"))


def same_scope(one: Entity, other: Entity) -> bool:
    """Rule 1's project condition: the two share a project tag, or neither has one. Topics shared across two
    projects (`python`, `auth`) say nothing about the memories being related."""
    mine, theirs = projects(one), projects(other)
    return bool(mine & theirs) if mine or theirs else True


def _signal(entity: Entity) -> float:
    value = entity.metadata.get("signal_score")
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else 0.5


def name_tokens(name: str) -> set[str]:
    return {token for token in _TOKEN.findall(name.lower()) if len(token) >= 3 and token not in STOPWORDS}


def _sessions(entity: Entity) -> set[str]:
    found = {tag[len("session:") :] for tag in entity.tags if tag.startswith("session:")}
    session_id = entity.metadata.get("session_id")
    if entity.type == "commit" and isinstance(session_id, str) and session_id:
        found.add(session_id)
    return found


def plan(
    entities: list[Entity],
    linked: set[int],
    existing: set[tuple[int, int, str]],
    already_processed: set[int],
    options: Options,
) -> Plan:
    """The edges to create. `linked` holds ids with any relation; `existing` every (from, to, type) edge."""
    out = Plan()
    scoped = [e for e in entities if options.project is None or options.project in projects(e)]
    orphans = [e for e in scoped if e.id not in linked and e.id not in already_processed]
    newest_first = sorted(scoped, key=lambda e: (e.created_at, e.id), reverse=True)
    for orphan in orphans:
        out.considered.append(orphan.id)
        made = 0
        mine = topical(orphan.tags)
        if len(mine) >= options.min_shared_tags:  # Rule 1: tag co-occurrence
            scored = [
                (len(mine & topical(other.tags)), other)
                for other in newest_first
                if other.id != orphan.id and same_scope(orphan, other)
            ]
            for shared, other in sorted(scored, key=lambda pair: -pair[0]):
                if shared < options.min_shared_tags or made >= options.max_per_source:
                    break
                made += out.add(Edge(orphan.id, other.id, "related-to", "tag-cooccurrence"), existing, undirected=True)
        if orphan.type in CLUSTERED_TYPES and projects(orphan) and made < options.max_per_source:  # Rule 2
            anchor = next(
                (
                    other
                    for other in newest_first
                    if other.type in ANCHOR_TYPES and other.id != orphan.id and projects(other) & projects(orphan)
                ),
                None,
            )
            if anchor is not None:
                made += out.add(Edge(orphan.id, anchor.id, "belongs-to-project", "project-clustering"), existing)
        if options.session_cooccurrence and orphan.type in SESSION_TYPES and _signal(orphan) >= 0.6:  # Rule 3
            for other in orphans:
                if made >= options.max_per_source:
                    break
                if (
                    other.id != orphan.id
                    and other.type in SESSION_TYPES
                    and _signal(other) >= SESSION_COOCCURRENCE_MIN_SIGNAL
                    and _sessions(orphan) & _sessions(other)
                ):
                    made += out.add(
                        Edge(orphan.id, other.id, "co-created", "session-cooccurrence"), existing, undirected=True
                    )
        if options.name_tokens:  # Rule 4
            mine_tokens = name_tokens(orphan.name)
            for other in orphans:
                if made >= options.max_per_source or not mine_tokens or other.id == orphan.id:
                    continue
                theirs = name_tokens(other.name)
                shared = len(mine_tokens & theirs)
                jaccard = shared / len(mine_tokens | theirs) if theirs else 0.0
                if shared >= 3 or (shared and jaccard >= options.min_jaccard):
                    made += out.add(
                        Edge(orphan.id, other.id, "shares-name-tokens", "name-tokens"), existing, undirected=True
                    )
    if options.evidence_links:  # Rule 5: evidence → the work item it supports
        has_evidence_edge = {from_id for from_id, _, kind in existing if kind == "evidences"}
        work = [e for e in newest_first if e.type in WORK_TYPES]
        for capture in scoped:
            if capture.type not in EVIDENCE_TYPES or capture.id in has_evidence_edge:
                continue
            sessions = _sessions(capture)
            target = next((w for w in work if sessions and _sessions(w) & sessions), None)
            if target is None:
                target = next(
                    (
                        w
                        for w in work
                        if projects(w) & projects(capture) and (w.created_at, w.id) < (capture.created_at, capture.id)
                    ),
                    None,
                )
            if target is not None:
                out.add(Edge(capture.id, target.id, "evidences", "evidence-links"), existing)
    return out
