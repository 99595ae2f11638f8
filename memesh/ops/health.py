"""health: is the database answering, and how many memories it holds."""

from __future__ import annotations

from typing import Protocol, TypedDict

from returns.result import Result, Success

import memesh
from memesh.errors import MemeshError


class HealthStore(Protocol):
    def count(self) -> int: ...


class Health(TypedDict):
    status: str
    version: str
    entity_count: int


def health(store: HealthStore) -> Result[Health, MemeshError]:
    """`{status: ok, version, entity_count}`; a database that cannot answer fails in the store (translated)."""
    return Success({"status": "ok", "version": memesh.__version__, "entity_count": store.count()})
