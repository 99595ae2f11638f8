"""demo: seed the tour dataset and remove it again (POST /v1/demo/seed, /v1/demo/reset, `memesh demo`)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from contextlib import AbstractContextManager
from typing import Protocol

from returns.result import Result, Success

from memesh.context import CallContext
from memesh.core import demo as dataset
from memesh.errors import MemeshError
from memesh.generated.http.demo_input import DemoInput
from memesh.generated.http.demo_output import DemoOutput
from memesh.model import EntityWrite


class DemoStore(Protocol):
    def transaction(self) -> AbstractContextManager[None]: ...
    def existing_names(self, names: Iterable[str]) -> set[str]: ...
    def save(self, write: EntityWrite) -> int: ...
    def create_relation(self, from_name: str, to_name: str, relation_type: str) -> bool: ...
    def marked_ids(self, key: str) -> list[int]: ...
    def delete(self, ids: Sequence[int]) -> int: ...


def seed(store: DemoStore, _request: DemoInput, /, *, ctx: CallContext) -> Result[DemoOutput, MemeshError]:
    """Insert the demo memories that are missing (a name already used, by anyone, is left alone), in one
    transaction; `inserted` counts the memories written now."""
    with store.transaction():
        taken = store.existing_names(memory.name for memory in dataset.MEMORIES)
        new = dataset.writes(ctx.now, ctx.source_host, taken)
        for write in new:
            store.save(write)
        demo_names = {memory.name for memory in dataset.MEMORIES if memory.name not in taken}
        for source, target, kind in dataset.RELATIONS:
            if source in demo_names and target in demo_names:
                store.create_relation(source, target, kind)
    return Success({"inserted": len(new), "removed": 0})


def reset(store: DemoStore, _request: DemoInput, /, *, ctx: CallContext) -> Result[DemoOutput, MemeshError]:
    """Delete every memory marked demo (and only those), all or nothing; `removed` counts them."""
    with store.transaction():
        removed = store.delete(store.marked_ids(dataset.MARK))
    return Success({"inserted": 0, "removed": removed})
