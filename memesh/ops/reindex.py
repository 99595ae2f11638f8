"""reindex: rebuild the keyword index from the stored memories (CLI only); the memories themselves are untouched."""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from returns.result import Result, Success

from memesh.context import CallContext
from memesh.errors import MemeshError
from memesh.generated.cli.reindex_input import ReindexInput
from memesh.generated.cli.reindex_output import ReindexOutput


class IndexStore(Protocol):
    def rebuild_index(self, progress: Callable[[int, int], None] | None = None) -> int: ...


class Watched(Protocol):
    """The database, and whoever watches long work (the CLI's progress line)."""

    @property
    def store(self) -> IndexStore: ...
    def progress(self, done: int, total: int) -> None: ...


def reindex(uses: Watched, request: ReindexInput, /, *, ctx: CallContext) -> Result[ReindexOutput, MemeshError]:
    """How many memories the rebuilt index holds, each one reported to `uses.progress` as it is indexed; fails only
    as the database fails (translated by the door)."""
    return Success({"entities": uses.store.rebuild_index(uses.progress)})
