"""health: is the database answering, and how many memories it holds."""

from __future__ import annotations

from typing import Protocol

from returns.result import Result, Success

import memesh
from memesh.context import CallContext
from memesh.errors import MemeshError
from memesh.generated.http.health_input import HealthInput
from memesh.generated.http.health_output import HealthOutput


class HealthStore(Protocol):
    def count(self) -> int: ...


def health(store: HealthStore, _request: HealthInput, /, *, ctx: CallContext) -> Result[HealthOutput, MemeshError]:
    """`{status: ok, version, entity_count}`; a database that cannot answer fails in the store (translated)."""
    return Success({"status": "ok", "version": memesh.__version__, "entity_count": store.count()})
