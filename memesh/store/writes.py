"""The store's writes of memories, shared by both engines; each engine keeps its own keyword index (`_index`).

Callers hold a transaction, except around `migrate`, `rebuild_index` and `touch`, which take their own.

Every string a write stores passes the one cleaner (`memesh.core.clean`) here, whatever the operation did before:
values, metadata keys and values at any depth (provenance, history), tags, types, relation types and MeMesh's own
values. Cleaning is idempotent, so text an operation already cleaned is stored unchanged; a name is an address, so
one that is not already clean is refused (`UncleanName`) rather than rewritten into another memory's name.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any, Protocol

from memesh.core.storable import map_strings
from memesh.core.terms import segment
from memesh.model import EntityWrite
from memesh.store.reads import Reads, key
from memesh.store.sql import _CHUNK, _chunks, _dumps, _marks


def clean_text(text: str) -> str:
    from memesh.core import clean  # the secret patterns: imported by the first write, not by a recall

    return clean.clean_text(text)


def index_columns(name: str, title: str | None, observations: Sequence[str]) -> tuple[str, str, str]:
    """The text the keyword index holds for one memory, by column (name, title, observations): CJK runs as bigrams.
    Both engines index exactly this text, so that their tokens are the same."""
    return segment(name), segment(title or ""), segment("\n".join(observations))


class UncleanName(ValueError):
    """A write named a memory with text the cleaner would change: a caller skipped the name rules."""


def clean_json(value: Any) -> Any:
    """`value` with every string in it (object keys included) as the cleaner stores it."""
    return map_strings(value, clean_text)


def cleaned(write: EntityWrite) -> EntityWrite:
    """`write` with every string as the cleaner stores it (its observations together, so a key written across them
    is redacted whole); UncleanName when its name is not already clean."""
    from memesh.core import clean

    if key(write.name) != write.name or clean.holds_secret(write.name):
        raise UncleanName("a memory name must be cleaned (and hold no credential) before it is stored")
    return replace(
        write,
        type=clean_text(write.type),
        title=None if write.title is None else clean_text(write.title),
        namespace=clean_text(write.namespace),
        status=clean_text(write.status),
        metadata=clean_json(write.metadata),
        observations=tuple(clean.clean_all(write.observations)),
        tags=tuple(dict.fromkeys(clean_text(tag) for tag in write.tags)),
        created_at=None if write.created_at is None else clean_text(write.created_at),
        author=None if write.author is None else clean_text(write.author),
    )


# --- the stored embeddings of `hybrid` recall (issue 21) ---
#
# A memory's blob in `entity_vectors` holds one vector per observation, in observation order, from the embedding
# model named beside it (memesh.adapters.embedding). Vectors are written by the same `_index` call that rewrites the
# keyword index, so in the same transaction as the row, and only while the store has an embedder (recall mode
# `hybrid` with the semantic extra installed): in any other mode the write path does nothing more than before.
# `memesh reindex --vectors` fills the vectors of memories written before (`fill_vectors`); `memesh reindex --fts`
# rebuilds the keyword index alone (`_fill_index` never embeds), as the spec says it does. They live in
# this module, shared by both engines (their SQL is the same through the store's `?` translation; `bytes()` takes
# a PostgreSQL bytea's memoryview as well as SQLite's bytes), so that the default `fts` start-up imports nothing more.


class Embedder(Protocol):
    """What the store needs of a model: its name, and one blob of vectors for some texts."""

    @property
    def model(self) -> str: ...

    @property
    def dimensions(self) -> int:
        """The bytes of one text's vector in what `embed` returns."""
        ...

    def embed(self, texts: Sequence[str]) -> bytes: ...


# Memories per batch of `fill_vectors` (embedded outside the write lock, then written in one transaction): about
# 0.1 s of embedding for short memories, so the progress line moves and an interruption loses little.
VECTOR_BATCH = 100


class Vectors(Reads):
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
            # The stored blob is the stored observations' vectors when it holds exactly that many; otherwise it
            # was left by writes made outside hybrid (no vectors kept then) and every vector is computed anew.
            if row is not None and row[0] and len(row[0]) == unchanged * embedder.dimensions:
                kept = bytes(row[0])
        new = observations[unchanged:] if kept else observations
        self.store_vectors(entity_id, embedder.model, kept + embedder.embed(list(new)))

    def store_vectors(self, entity_id: int, model: str, blob: bytes) -> None:
        self.conn.execute(
            "INSERT INTO entity_vectors (entity_id, model, vectors) VALUES (?, ?, ?) "
            "ON CONFLICT(entity_id) DO UPDATE SET model = excluded.model, vectors = excluded.vectors",
            (entity_id, model, blob),
        )

    def missing_vectors(self, model: str, among: Sequence[int] | None = None, *, size: int | None = None) -> list[int]:
        """The memories with no vectors from `model` (written before hybrid was on, or under another model), in id
        order; with `size` (the bytes of one vector) also those whose vectors do not number their observations
        (changed while recall was not hybrid, when writes keep no vectors); with `among`, only those of these ids
        (that still exist)."""
        sql = (
            "SELECT e.id FROM entities e LEFT JOIN entity_vectors v ON v.entity_id = e.id AND v.model = ? "
            "WHERE (v.entity_id IS NULL"
        )
        params: tuple[Any, ...] = (model,)
        if size is not None:
            sql += " OR length(v.vectors) != ? * (SELECT count(*) FROM observations o WHERE o.entity_id = e.id)"
            params += (size,)
        sql += ")"
        if among is None:
            return [int(row[0]) for row in self.conn.execute(f"{sql} ORDER BY e.id", params)]
        found: list[int] = []
        for chunk in _chunks(list(among)):
            rows = self.conn.execute(f"{sql} AND e.id IN ({_marks(chunk)}) ORDER BY e.id", (*params, *chunk))
            found += [int(row[0]) for row in rows]
        return found

    def fill_vectors(self, embedder: Embedder, progress: Callable[[int, int], None] | None = None) -> int:
        """Store `embedder`'s vectors for every memory that has none from its model; returns how many it stored.

        A batch of VECTOR_BATCH memories at a time: embedded first, outside any transaction, then written in one
        transaction of its own, so a writer waiting for the database (a hook, the MCP server) waits for the rows
        alone, never for the model. Inside it the batch is read again under the write lock: a memory whose text
        changed meanwhile is embedded again there, and one another writer gave vectors meanwhile (hybrid's write
        path) is left as that writer stored it. A memory's vectors are one row, so an interruption leaves every
        memory with all its vectors or none, and a second run stores the rest.
        """
        ids = self.missing_vectors(embedder.model, size=embedder.dimensions)
        stored = 0
        for start in range(0, len(ids), VECTOR_BATCH):
            batch = ids[start : start + VECTOR_BATCH]
            embedded = {
                entity.id: (entity.observations, embedder.embed(list(entity.observations)))
                for entity in self.load(self.missing_vectors(embedder.model, batch, size=embedder.dimensions))
            }
            with self.transaction():
                for entity in self.load(self.missing_vectors(embedder.model, batch, size=embedder.dimensions)):
                    seen, blob = embedded.get(entity.id, (None, b""))
                    if seen != entity.observations:
                        blob = embedder.embed(list(entity.observations))
                    self.conn.execute(
                        "INSERT INTO entity_vectors (entity_id, model, vectors) VALUES (?, ?, ?) "
                        "ON CONFLICT(entity_id) DO UPDATE SET model = excluded.model, vectors = excluded.vectors "
                        "WHERE entity_vectors.model <> excluded.model "
                        "OR length(entity_vectors.vectors) <> length(excluded.vectors)",
                        (entity.id, embedder.model, blob),
                    )
                    stored += 1
            if progress is not None:
                progress(min(start + VECTOR_BATCH, len(ids)), len(ids))
        return stored


class Writes(Vectors):
    """Every change to the stored memories; the engine's `_index` keeps its keyword index in step with them."""

    # What `migrate` applied when this store was opened (`memesh db migrate` reports it): (version, name) each.
    migrated: list[tuple[int, str]] = []  # noqa: RUF012 (replaced whole by `migrate`, never changed in place)

    def migrate(self) -> list[tuple[int, str]]:
        """Bring the schema up to date: the engine's numbered migrations, each applied once; those it applied."""
        raise NotImplementedError

    def rebuild_index(self, progress: Callable[[int, int], None] | None = None) -> int:
        """Rebuild the keyword index from the stored rows, in one transaction; returns how many memories it holds."""
        raise NotImplementedError

    def _index(
        self, entity_id: int, name: str, title: str | None, observations: Sequence[str], *, unchanged: int = 0
    ) -> None:
        """Make the keyword index's entry for this memory hold exactly this text and, while the store has an
        embedder (hybrid), its vectors; the first `unchanged` observations are the ones already stored."""
        self._index_keywords(entity_id, name, title, observations)
        self._embed_observations(entity_id, observations, unchanged)

    def _index_keywords(self, entity_id: int, name: str, title: str | None, observations: Sequence[str]) -> None:
        """Make the keyword index's entry for this memory hold exactly this text (the engine's own index)."""
        raise NotImplementedError

    def _bookkeeping_refused(self, exc: Exception) -> bool:
        """Whether `exc` says the database cannot take a write now (read-only, full) rather than a bug."""
        raise NotImplementedError

    def set_meta(self, key: str, value: str | None) -> None:
        """Store (or, with None, remove) one of MeMesh's own values."""
        if value is None:
            self.conn.execute("DELETE FROM memesh_metadata WHERE key = ?", (key,))
        else:
            key, value = clean_text(key), _clean_stored_text(value)
            self.conn.execute(
                "INSERT INTO memesh_metadata (key, value) VALUES (?, ?) "
                "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                (key, value),
            )

    def save(self, write: EntityWrite) -> int:
        """Make the stored memory match `write` (every string cleaned); returns its id. The keyword index is
        rewritten with it. UncleanName when the write's name did not pass the name rules."""
        write = cleaned(write)
        metadata = _dumps(write.metadata)
        author = write.author or _provenance_author(write.metadata)
        if write.entity_id is None:
            entity_id = self._insert_id(
                "INSERT INTO entities (name, type, title, namespace, status, metadata, created_at, author) "
                f"VALUES (?, ?, ?, ?, ?, ?, COALESCE(?, {self.dialect.now}), ?)",
                (
                    write.name,
                    write.type,
                    write.title,
                    write.namespace,
                    write.status,
                    metadata,
                    write.created_at,
                    author,
                ),
            )
            stored_obs: list[str] = []
            stored_tags: list[str] = []
        else:
            entity_id = write.entity_id
            self.conn.execute(
                "UPDATE entities SET type = ?, title = ?, namespace = ?, status = ?, metadata = ?, "
                "confidence = COALESCE(?, confidence) WHERE id = ?",
                (write.type, write.title, write.namespace, write.status, metadata, write.confidence, entity_id),
            )
            stored_obs = [
                row[0]
                for row in self.conn.execute(
                    "SELECT content FROM observations WHERE entity_id = ? ORDER BY id", (entity_id,)
                )
            ]
            stored_tags = [
                row[0]
                for row in self.conn.execute("SELECT tag FROM tags WHERE entity_id = ? ORDER BY id", (entity_id,))
            ]
        unchanged = self._sync_observations(entity_id, stored_obs, list(write.observations), author)
        self._sync_tags(entity_id, stored_tags, list(write.tags))
        self._index(entity_id, write.name, write.title, write.observations, unchanged=unchanged)
        return entity_id

    def _sync_observations(self, entity_id: int, stored: list[str], wanted: list[str], author: str | None) -> int:
        """Store `wanted` as the memory's observations; returns how many of the stored ones were kept as they were
        (the stored list when it is where `wanted` starts, else none)."""
        if stored == wanted[: len(stored)]:
            kept = len(stored)
        else:
            self.conn.execute("DELETE FROM observations WHERE entity_id = ?", (entity_id,))
            kept = 0
        self.conn.executemany(
            "INSERT INTO observations (entity_id, content, author) VALUES (?, ?, ?)",
            [(entity_id, text, author) for text in wanted[kept:]],
        )
        return kept

    def _sync_tags(self, entity_id: int, stored: list[str], wanted: list[str]) -> None:
        keep = set(wanted)
        gone = [tag for tag in stored if tag not in keep]
        if gone:
            self.conn.executemany("DELETE FROM tags WHERE entity_id = ? AND tag = ?", [(entity_id, t) for t in gone])
        have = set(stored)
        self.conn.executemany(
            "INSERT INTO tags (entity_id, tag) VALUES (?, ?) ON CONFLICT DO NOTHING",
            [(entity_id, tag) for tag in dict.fromkeys(wanted) if tag not in have],
        )

    def relate(self, from_name: str, to_name: str, relation_type: str) -> bool:
        """Create the relation (idempotent); False when either end does not exist."""
        created = self.create_relation(from_name, to_name, relation_type)
        return created or self._relation_exists(from_name, to_name, relation_type)

    def create_relation(self, from_name: str, to_name: str, relation_type: str, *, author: str | None = None) -> bool:
        """Create the relation (recording who wrote it); True only when this call created it (False when it existed
        or an end is missing)."""
        cursor = self.conn.execute(
            "INSERT INTO relations (from_entity_id, to_entity_id, relation_type, author) "
            "SELECT f.id, t.id, ?, ? FROM entities f, entities t WHERE f.name = ? AND t.name = ? "
            "ON CONFLICT DO NOTHING",
            (clean_text(relation_type), None if author is None else clean_text(author), key(from_name), key(to_name)),
        )
        return cursor.rowcount > 0

    def archive_if_active(self, name: str) -> bool:
        """Archive the memory; True only when it was active (so this call archived it)."""
        cursor = self.conn.execute(
            "UPDATE entities SET status = 'archived' WHERE name = ? AND status != 'archived'", (key(name),)
        )
        return cursor.rowcount > 0

    def _relation_exists(self, from_name: str, to_name: str, relation_type: str) -> bool:
        row = self.conn.execute(
            "SELECT 1 FROM relations r JOIN entities f ON f.id = r.from_entity_id "
            "JOIN entities t ON t.id = r.to_entity_id WHERE f.name = ? AND t.name = ? AND r.relation_type = ?",
            (key(from_name), key(to_name), clean_text(relation_type)),
        ).fetchone()
        return row is not None

    def set_status(self, name: str, status: str) -> bool:
        """Archive or reactivate a memory; False when there is none by that name."""
        cursor = self.conn.execute("UPDATE entities SET status = ? WHERE name = ?", (clean_text(status), key(name)))
        return cursor.rowcount > 0

    def update_metadata(self, entity_id: int, metadata: dict[str, Any]) -> None:
        self.conn.execute("UPDATE entities SET metadata = ? WHERE id = ?", (_dumps(clean_json(metadata)), entity_id))

    def remove_observation(self, entity_id: int, text: str) -> bool:
        """Delete the earliest observation with exactly this text and reindex; False when none matched."""
        row = self.conn.execute(
            "SELECT id FROM observations WHERE entity_id = ? AND content = ? ORDER BY id LIMIT 1", (entity_id, text)
        ).fetchone()
        if row is None:
            return False
        self.conn.execute("DELETE FROM observations WHERE id = ?", (row[0],))
        entity = self.load([entity_id])[0]
        self._index(entity_id, entity.name, entity.title, entity.observations)
        return True

    def _fill_index(self, progress: Callable[[int, int], None] | None = None) -> int:
        """Index every stored memory into the (empty) keyword index; returns how many it holds. Keywords only: the
        vectors are `fill_vectors`'s (a copy brings its own, and a migration's refill leaves them as they are)."""
        ids = [row[0] for row in self.conn.execute("SELECT id FROM entities ORDER BY id")]
        for done, chunk in enumerate(_chunks(ids), start=1):
            for entity in self.load(chunk):
                self._index_keywords(entity.id, entity.name, entity.title, entity.observations)
            if progress is not None:
                progress(min(done * _CHUNK, len(ids)), len(ids))
        return len(ids)

    def touch(self, ids: Sequence[int], when: str) -> None:
        """Count one access for each memory a recall returned (access tracking feeds the ranking)."""
        if not ids or self.read_only:
            return
        try:
            with self.transaction():
                for chunk in _chunks(list(ids)):
                    self.conn.execute(
                        "UPDATE entities SET access_count = access_count + 1, last_accessed_at = ? "
                        f"WHERE id IN ({_marks(chunk)})",
                        (when, *chunk),
                    )
        except Exception as exc:
            # Bookkeeping: a database that cannot be written (read-only, a full disk) still answers recall.
            if not self._bookkeeping_refused(exc):
                raise


def _provenance_author(metadata: dict[str, Any]) -> str | None:
    provenance = metadata.get("provenance")
    author = provenance.get("author") if isinstance(provenance, dict) else None
    return author if isinstance(author, str) and author else None


def _clean_stored_text(value: str) -> str:
    """One of MeMesh's own values as stored: a JSON text has each of its strings cleaned (cleaning the text whole
    could cut through its quoting), any other text is cleaned as text."""
    try:
        decoded = json.loads(value)
    except ValueError:
        return clean_text(value)
    return _dumps(clean_json(decoded))
