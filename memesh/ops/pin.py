"""pin / unpin: mark a memory so digest work-package selection leaves it alone (CLI only)."""

from __future__ import annotations

from contextlib import AbstractContextManager
from typing import Any, Protocol

from returns.result import Failure, Result, Success

from memesh.context import CallContext
from memesh.errors import MemeshError
from memesh.generated.cli.pin_input import PinInput
from memesh.generated.cli.pin_output import PinOutput
from memesh.model import Entity


class PinStore(Protocol):
    def transaction(self) -> AbstractContextManager[None]: ...
    def find(self, name: str) -> Entity | None: ...
    def update_metadata(self, entity_id: int, metadata: dict[str, Any]) -> None: ...


def pin(store: PinStore, request: PinInput, /, *, ctx: CallContext) -> Result[PinOutput, MemeshError]:
    """`{name, pinned, found}` after writing metadata.pin (or removing it); Failure(resource.not-found) carrying
    `{name, pinned: None, found: False}` when there is no such memory."""
    name, pinned = request["name"], request["pinned"]
    with store.transaction():
        entity = store.find(name)
        if entity is None:
            return Failure(MemeshError.not_found(f'Entity "{name}" not found', name=name, pinned=None, found=False))
        metadata = {key: value for key, value in entity.metadata.items() if key != "pin"}
        if pinned:
            metadata["pin"] = True
        store.update_metadata(entity.id, metadata)
    return Success({"name": name, "pinned": pinned, "found": True})
