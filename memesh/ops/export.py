"""export: the portable JSON bundle (version 3.1.0) of the newest memories, archived ones included."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Protocol

from returns.result import Result, Success

from memesh.context import CallContext
from memesh.core import access
from memesh.errors import MemeshError
from memesh.generated.tools.export_input import ExportInput
from memesh.generated.tools.export_output import Entity as BundleEntity
from memesh.generated.tools.export_output import ExportBundle
from memesh.model import Entity, Filters, iso_time
from memesh.ops.seen import seen_relations
from memesh.schema import facts

BUNDLE_VERSION = "3.1.0"
DEFAULT_LIMIT: int = facts.default("tools/export.input", "limit")


class ExportStore(Protocol):
    def recent(self, filters: Filters, limit: int) -> list[int]: ...
    def load(self, ids: Sequence[int]) -> list[Entity]: ...
    def existing_names(self, names: Iterable[str], people: Filters | None = None) -> set[str]: ...


def bundle_entity(entity: Entity) -> BundleEntity:
    """One memory as a bundle carries it: everything needed to restore it, nothing about how often it was read."""
    out: BundleEntity = {
        "name": entity.name,
        "type": entity.type,
        "title": entity.title,
        "namespace": entity.namespace,  # type: ignore[typeddict-item]
        "created_at": entity.created_at,
    }
    if entity.archived:
        out["status"] = "archived"
    if entity.metadata:
        out["metadata"] = entity.metadata
    out["observations"] = list(entity.observations)
    out["tags"] = list(entity.tags)
    out["relations"] = [{"to": r.to_name, "type": r.type} for r in entity.relations]
    return out


LOAD_CHUNK = 1000


def export(store: ExportStore, request: ExportInput, *, ctx: CallContext) -> Result[ExportBundle, MemeshError]:
    """The newest `limit` memories passing the filters, with `truncated` when more exist; never fails."""
    limit = request.get("limit", DEFAULT_LIMIT)
    filters = Filters(tag=request.get("tag") or None, namespace=request.get("namespace"), include_archived=True)
    filters = access.scoped(filters, ctx.caller)  # a member exports only what it may read (issue 32)
    ids = store.recent(filters, limit + 1)
    # Loaded a chunk at a time, so a large export never holds every memory twice (as rows and as bundle entries).
    entities = [
        bundle_entity(entity)
        for start in range(0, min(len(ids), limit), LOAD_CHUNK)
        for entity in seen_relations(store, store.load(ids[start : min(start + LOAD_CHUNK, limit)]), ctx.caller)
    ]
    return Success(
        {
            "version": BUNDLE_VERSION,
            "exported_at": iso_time(ctx.now),
            "entity_count": len(entities),
            "truncated": len(ids) > limit,
            "entities": entities,
        }
    )
