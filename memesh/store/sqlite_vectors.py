"""The stored embeddings of `hybrid` recall: one blob of vectors per memory, written with its row.

A memory's blob holds one vector per observation, in observation order, from the embedding model named beside it
(memesh.adapters.embedding). Vectors are written by the same `_index` call that rewrites the keyword index, so in
the same transaction as the row, and only while the store has an embedder (recall mode `hybrid` with the semantic
extra installed): in any other mode the write path does nothing more than before. `memesh reindex` fills the
vectors of memories written before (`missing_vectors`, `store_vectors`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol

from memesh.store.sqlite_base import SqliteBase, _chunks, _marks


class Embedder(Protocol):
    """What the store needs of a model: its name, and one blob of vectors for some texts."""

    @property
    def model(self) -> str: ...

    def embed(self, texts: Sequence[str]) -> bytes: ...


class SqliteVectors(SqliteBase):
    """Reads and writes of `entity_vectors`."""

    # Asked once, on the first write that could store vectors: the embedder, or None when vectors are not kept.
    vector_source: Callable[[], Embedder | None] | None = None
    _embedder_known = False
    _embedder: Embedder | None = None

    def embedder(self) -> Embedder | None:
        if not self._embedder_known:
            self._embedder = self.vector_source() if self.vector_source is not None else None
            self._embedder_known = True
        return self._embedder

    def use_embedder(self, source: Callable[[], Embedder | None] | None) -> None:
        """Set where the embedder comes from (asked on the next write that could store vectors)."""
        self.vector_source = source
        self._embedder_known = False
        self._embedder = None

    def vectors(self, ids: Sequence[int], model: str) -> dict[int, bytes]:
        """The stored vector blobs of these memories from `model` (a memory with none, or with another model's,
        is left out)."""
        found: dict[int, bytes] = {}
        for chunk in _chunks(list(ids)):
            sql = f"SELECT entity_id, vectors FROM entity_vectors WHERE model = ? AND entity_id IN ({_marks(chunk)})"
            found.update((row[0], bytes(row[1])) for row in self.conn.execute(sql, (model, *chunk)))
        return found

    def _embed_observations(self, entity_id: int, observations: Sequence[str], unchanged: int) -> None:
        """Store the memory's vectors; the first `unchanged` observations are those already stored, so their
        vectors are kept rather than computed again (remember appending to a memory)."""
        embedder = self.embedder()
        if embedder is None:
            return
        kept = b""
        if unchanged:
            row = self.conn.execute(
                "SELECT vectors FROM entity_vectors WHERE entity_id = ? AND model = ?", (entity_id, embedder.model)
            ).fetchone()
            # The stored blob is the stored observations' vectors when it splits into that many equal rows.
            if row is not None and row[0] and len(row[0]) % unchanged == 0:
                kept = bytes(row[0])
        new = observations[unchanged:] if kept else observations
        self.store_vectors(entity_id, embedder.model, kept + embedder.embed(list(new)))

    def store_vectors(self, entity_id: int, model: str, blob: bytes) -> None:
        self.conn.execute(
            "INSERT INTO entity_vectors (entity_id, model, vectors) VALUES (?, ?, ?) "
            "ON CONFLICT(entity_id) DO UPDATE SET model = excluded.model, vectors = excluded.vectors",
            (entity_id, model, blob),
        )

    def missing_vectors(self, model: str) -> list[int]:
        """The memories with no vectors from `model` (written before hybrid was on, or under another model)."""
        rows = self.conn.execute(
            "SELECT e.id FROM entities e LEFT JOIN entity_vectors v ON v.entity_id = e.id AND v.model = ? "
            "WHERE v.entity_id IS NULL ORDER BY e.id",
            (model,),
        )
        return [int(row[0]) for row in rows]
