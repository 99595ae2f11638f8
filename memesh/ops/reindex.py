"""reindex: rebuild the indexes recall uses from the stored memories (CLI only); the memories themselves are untouched.

Two indexes, rebuilt apart (ADR 0006): `fts` the keyword index, keywords only in every recall mode (the spec: it
generates no embeddings and creates no vector data); `vectors` hybrid recall's vectors, stored for the memories that
have none from the model in use. Asking for vectors where hybrid is not in effect is refused before anything is
written, with a stable `reason` beside operation.failed saying which of the two causes it is.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol

from returns.result import Failure, Result, Success

from memesh.context import CallContext
from memesh.core.settings import RecallModeSetting
from memesh.errors import MemeshError
from memesh.generated.cli.reindex_input import ReindexInput
from memesh.generated.cli.reindex_output import ReindexOutput

# The `reason` beside operation.failed when --vectors cannot run: branch on these, not on the message.
NOT_HYBRID = "not-hybrid"
EXTRA_MISSING = "semantic-extra-missing"


class Embedder(Protocol):
    @property
    def model(self) -> str: ...
    @property
    def dimensions(self) -> int: ...
    def embed(self, texts: Sequence[str]) -> bytes: ...


class IndexStore(Protocol):
    def rebuild_index(self, progress: Callable[[int, int], None] | None = None) -> int: ...
    def fill_vectors(self, embedder: Embedder, progress: Callable[[int, int], None] | None = None) -> int: ...
    def count(self) -> int: ...


class Watched(Protocol):
    """The database, whoever watches long work (the CLI's progress line), and what hybrid's write path embeds with
    (None when hybrid is not in effect) with the recall mode that says why."""

    @property
    def store(self) -> IndexStore: ...
    def progress(self, done: int, total: int) -> None: ...
    def write_embedder(self) -> Embedder | None: ...
    def recall_mode(self) -> RecallModeSetting: ...


def why_no_vectors(mode: RecallModeSetting) -> MemeshError:
    """The refusal of --vectors outside hybrid: the extra missing (hybrid asked for, answering as broad), or another
    mode in effect."""
    if mode.requested == "hybrid" and mode.missing is not None:
        return MemeshError.failed(
            f"{mode.missing}; hybrid recall answers as broad, and its vectors cannot be computed until it is",
            reason=EXTRA_MISSING,
            recallMode=mode.value,
        )
    return MemeshError.failed(
        f"recall mode is {mode.value}; vectors are used only in hybrid: memesh config set recallMode hybrid",
        reason=NOT_HYBRID,
        recallMode=mode.value,
    )


def reindex(uses: Watched, request: ReindexInput, /, *, ctx: CallContext) -> Result[ReindexOutput, MemeshError]:
    """How many memories there are (the rebuilt keyword index holds them all) and, with `vectors`, how many had
    their vectors stored now, each step reported to `uses.progress`. Before anything is written:
    Failure(operation.failed) when vectors are asked for outside hybrid, Failure(validation.bad-body) when neither
    index is; else it fails only as the database fails (translated by the door)."""
    fts, vectors = request.get("fts", True), request.get("vectors", False)
    if not (fts or vectors):
        return Failure(MemeshError.bad_body("nothing to rebuild: ask for fts, vectors or both"))
    embedder = uses.write_embedder() if vectors else None
    if vectors and embedder is None:
        return Failure(why_no_vectors(uses.recall_mode()))
    entities = uses.store.rebuild_index(uses.progress) if fts else uses.store.count()
    if embedder is None:
        return Success({"entities": entities})
    return Success({"entities": entities, "embedded": uses.store.fill_vectors(embedder, uses.progress)})
