"""Reading memories as they are stored, for listings and lookups that are not searches (no access is counted)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Protocol, cast

from returns.result import Failure, Result, Success

from memesh.context import CallContext
from memesh.core import access
from memesh.errors import MemeshError
from memesh.generated.http.entities_input import EntitiesInput
from memesh.generated.http.entities_output import EntitiesOutput
from memesh.generated.http.entity_input import EntityInput
from memesh.generated.http.entity_output import StoredEntity
from memesh.model import Entity, Filters
from memesh.ops.recall import shown
from memesh.ops.seen import seen_relations
from memesh.schema import facts

LIST_DEFAULT_LIMIT: int = facts.default("http/entities.input", "limit")


class EntitiesStore(Protocol):
    def list_ids(
        self,
        entity_type: str | None,
        limit: int,
        *,
        include_archived: bool = True,
        offset: int = 0,
        people: Filters | None = None,
    ) -> list[int]: ...
    def load(self, ids: Sequence[int]) -> list[Entity]: ...
    def find(self, name: str) -> Entity | None: ...
    def existing_names(self, names: Iterable[str], people: Filters | None = None) -> set[str]: ...


def full_entity(entity: Entity) -> StoredEntity:
    """One memory in recall's shape, but with its metadata whole (replaced_history included, not summarized)."""
    out = cast(StoredEntity, shown(entity, None))
    if entity.metadata:
        out["metadata"] = entity.metadata
    return out


def list_entities(
    store: EntitiesStore, request: EntitiesInput, /, *, ctx: CallContext
) -> Result[EntitiesOutput, MemeshError]:
    """Up to `limit` memories (1-5000, checked at the edge) after the newest `offset`, newest first, archived
    included; never fails."""
    limit = request.get("limit", LIST_DEFAULT_LIMIT)
    people = access.scoped(Filters(author=request.get("author")), ctx.caller)
    ids = store.list_ids(request.get("type") or None, limit, offset=request.get("offset", 0), people=people)
    return Success([full_entity(e) for e in seen_relations(store, store.load(ids), ctx.caller)])


def _visible(ctx: CallContext, entity: Entity) -> bool:
    provenance = entity.metadata.get("provenance")
    author = provenance.get("author") if isinstance(provenance, dict) else None
    return access.may_see(ctx.caller, entity.namespace, author, entity.tags)


def get_entity(store: EntitiesStore, request: EntityInput, /, *, ctx: CallContext) -> Result[StoredEntity, MemeshError]:
    """The memory called `name`, archived or not, with full metadata; Failure(resource.not-found) when none."""
    name = request["name"]
    entity = store.find(name)
    if entity is None or not _visible(ctx, entity):  # what a member may not see is not there, for it
        return Failure(MemeshError.not_found(f'Entity "{name}" not found', name=name))
    [entity] = seen_relations(store, [entity], ctx.caller)
    return Success(full_entity(entity))
