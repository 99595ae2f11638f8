"""health: is the database answering, and how many memories it holds."""

from __future__ import annotations

from typing import Protocol

from returns.result import Result, Success

import memesh
from memesh.context import CallContext
from memesh.core import access
from memesh.errors import MemeshError
from memesh.generated.http.health_input import HealthInput
from memesh.generated.http.health_output import HealthOutput
from memesh.model import Filters


class HealthStore(Protocol):
    def count(self, people: Filters | None = None) -> int: ...


def health(store: HealthStore, _request: HealthInput, /, *, ctx: CallContext) -> Result[HealthOutput, MemeshError]:
    """`{status: ok, version, entity_count}`; a database that cannot answer fails in the store (translated)."""
    count = store.count(access.counted(ctx.caller))  # a member counts what it may see (issue 32)
    return Success({"status": "ok", "version": memesh.__version__, "entity_count": count})
