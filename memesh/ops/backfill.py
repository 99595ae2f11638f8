"""`memesh kg backfill-relations`: propose (dry run) or create the heuristic edges for orphan memories."""

from __future__ import annotations

import json
from contextlib import AbstractContextManager
from typing import Any, Protocol, cast

from returns.result import Result, Success

from memesh.context import CallContext
from memesh.core import backfill as rules
from memesh.errors import MemeshError
from memesh.generated.cli.backfill_relations_input import BackfillRelationsInput
from memesh.generated.cli.backfill_relations_output import BackfillRelationsOutput
from memesh.model import Entity

PROCESSED_KEY = "kg_backfill_processed_v1"


class BackfillStore(Protocol):
    def transaction(self) -> AbstractContextManager[None]: ...
    def graph(self, include_archived: bool) -> tuple[list[Entity], set[tuple[int, int, str]]]: ...
    def get_meta(self, key: str) -> str | None: ...
    def set_meta(self, key: str, value: str | None) -> None: ...
    def relate_ids(self, from_id: int, to_id: int, relation_type: str) -> bool: ...


def _processed(store: BackfillStore) -> set[int]:
    try:
        value = json.loads(store.get_meta(PROCESSED_KEY) or "[]")
    except ValueError:
        return set()
    return {item for item in value if isinstance(item, int)} if isinstance(value, list) else set()


def backfill_relations(
    store: BackfillStore, request: BackfillRelationsInput, /, *, ctx: CallContext
) -> Result[BackfillRelationsOutput, MemeshError]:
    """The proposed edges, created unless a dry run, with how many orphans earlier runs had already considered;
    fails only as the database fails."""
    project = request.get("project")
    defaults = rules.Options()
    options = rules.Options(
        # A `project:` prefix is the tag's, not part of the name (as rename-project takes it).
        project=project.strip().removeprefix("project:") if project else None,
        max_per_source=request.get("max_per_source", defaults.max_per_source),
        min_shared_tags=request.get("min_shared_tags", defaults.min_shared_tags),
        session_cooccurrence=request.get("session_cooccurrence", defaults.session_cooccurrence),
        name_tokens=request.get("name_tokens", defaults.name_tokens),
        min_jaccard=request.get("min_jaccard", defaults.min_jaccard),
        evidence_links=request.get("evidence_links", defaults.evidence_links),
    )
    answer = backfill(
        store,
        options,
        dry_run=request.get("dry_run", False),
        include_archived=request.get("include_archived", False),
        reset_idempotency=request.get("reset_idempotency", False),
    )
    return Success(cast(BackfillRelationsOutput, answer))


def backfill(
    store: BackfillStore,
    options: rules.Options,
    *,
    dry_run: bool,
    include_archived: bool = False,
    reset_idempotency: bool = False,
) -> dict[str, Any]:
    """The proposed edges, created unless `dry_run`, with how many orphans earlier runs had already considered."""
    with store.transaction():
        if reset_idempotency and not dry_run:
            store.set_meta(PROCESSED_KEY, None)
        processed = set() if reset_idempotency else _processed(store)
        entities, existing = store.graph(include_archived)
        linked = {end for from_id, to_id, _ in existing for end in (from_id, to_id)}
        orphans = {e.id for e in entities if e.id not in linked}
        skipped = len(orphans & processed)
        plan = rules.plan(entities, linked, set(existing), processed, options)
        created = 0
        if not dry_run:
            for edge in plan.edges:
                created += store.relate_ids(edge.from_id, edge.to_id, edge.type)
            store.set_meta(PROCESSED_KEY, json.dumps(sorted(processed | set(plan.considered))))
    names = {e.id: e.name for e in entities}
    by_rule: dict[str, int] = {}
    for edge in plan.edges:
        by_rule[edge.rule] = by_rule.get(edge.rule, 0) + 1
    return {
        "dry_run": dry_run,
        "proposed": len(plan.edges),
        "created": created,
        "by_rule": by_rule,
        "edges": [{"from": names[e.from_id], "to": names[e.to_id], "type": e.type, "rule": e.rule} for e in plan.edges],
        "orphans_considered": len(plan.considered),
        "idempotency": {"skipped": skipped},
    }
