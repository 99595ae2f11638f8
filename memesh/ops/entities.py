"""Reading memories as they are stored, for listings and lookups that are not searches (no access is counted)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from returns.result import Failure, Result, Success

from memesh.errors import ErrorCode, MemeshError
from memesh.generated.tools.recall_output import Entity as ShownEntity
from memesh.model import Entity
from memesh.ops.recall import shown
from memesh.schema import facts

LIST_DEFAULT_LIMIT: int = facts.default("http/entities.query", "limit")
LIST_MAX_LIMIT: int = facts.bounds("http/entities.query", "limit")[1]


class EntitiesStore(Protocol):
    def list_ids(self, entity_type: str | None, limit: int, *, include_archived: bool = True) -> list[int]: ...
    def load(self, ids: Sequence[int]) -> list[Entity]: ...
    def find(self, name: str) -> Entity | None: ...


def bad_limit() -> MemeshError:
    """The one refusal for a listing limit, whatever was wrong with it."""
    return MemeshError(ErrorCode.BAD_PARAM, f"limit must be an integer from 1 to {LIST_MAX_LIMIT}", {"param": "limit"})


def full_entity(entity: Entity) -> ShownEntity:
    """One memory in recall's shape, but with its metadata whole (replaced_history included, not summarized)."""
    out = shown(entity, None)
    if entity.metadata:
        out["metadata"] = entity.metadata
    return out


def list_entities(
    store: EntitiesStore, entity_type: str | None, limit: int = LIST_DEFAULT_LIMIT
) -> Result[list[ShownEntity], MemeshError]:
    """Up to `limit` memories, newest first, archived included; Failure(validation.bad-param) for a limit outside
    1..5000."""
    if not 1 <= limit <= LIST_MAX_LIMIT:
        return Failure(bad_limit())
    return Success([full_entity(e) for e in store.load(store.list_ids(entity_type, limit))])


def get_entity(store: EntitiesStore, name: str) -> Result[ShownEntity, MemeshError]:
    """The memory called `name`, archived or not, with full metadata; Failure(resource.not-found) when none."""
    entity = store.find(name)
    if entity is None:
        return Failure(MemeshError.not_found(f'Entity "{name}" not found', name=name))
    return Success(full_entity(entity))
