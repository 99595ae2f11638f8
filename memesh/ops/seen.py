"""What a member's answer may name of other memories (issue 32): a relation to a memory it may not see — outside its
projects, or another member's `personal` one — is left out of the memories it reads, so no recall, export or lookup
tells it that memory's name. The rule is recall's (`access.scoped`), asked of the store in one read."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from typing import Protocol

from memesh.context import Caller
from memesh.core import access
from memesh.model import Entity, Filters


class NamesStore(Protocol):
    def existing_names(self, names: Iterable[str], people: Filters | None = None) -> set[str]: ...


def seen_relations(store: NamesStore, entities: list[Entity], caller: Caller | None) -> list[Entity]:
    """`entities` as `caller` may read them: each relation to a memory it may not see left out; unchanged for a
    local call (no caller) and for memories with no relation."""
    if caller is None:
        return entities
    targets = {relation.to_name for entity in entities for relation in entity.relations}
    if not targets:
        return entities
    seen = store.existing_names(targets, access.scoped(Filters(), caller))
    return [
        entity
        if all(relation.to_name in seen for relation in entity.relations)
        else replace(entity, relations=[relation for relation in entity.relations if relation.to_name in seen])
        for entity in entities
    ]
