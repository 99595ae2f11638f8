"""memesh reindex as a person types it, on both engines: --fts rebuilds the keyword index and nothing else, in every
recall mode; --vectors stores hybrid's vectors for the memories that have none (the real model), and is refused
outside hybrid with nothing written; no flag names both; doctor in hybrid counts the memories without vectors."""

from __future__ import annotations

import io
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from memesh.adapters import embedding
from tests.backends import Backend

if TYPE_CHECKING:
    from tests.transports.cli.conftest import Cli, Process

needs_semantic = pytest.mark.skipif(
    embedding.missing_reason() is not None, reason="the semantic extra is not installed"
)


def vector_rows(backend: Backend, db: Path) -> dict[int, tuple[str, int]]:
    """Each memory's stored vectors in the command's database: (model, bytes)."""
    store = backend.open(db)
    try:
        found = store.conn.execute("SELECT entity_id, model, length(vectors) FROM entity_vectors").fetchall()
        return {int(row[0]): (str(row[1]), int(row[2])) for row in found}
    finally:
        store.close()


def keyword_index(backend: Backend, db: Path) -> tuple[int, int]:
    """(memories, memories in the keyword index)."""
    store = backend.open(db)
    try:
        return store.index_matches()
    finally:
        store.close()


def empty_the_keyword_index(backend: Backend, db: Path) -> None:
    store = backend.open(db)
    try:
        with store.transaction():
            if backend.postgres:
                store.conn.execute("DELETE FROM search_postings")
                store.conn.execute("DELETE FROM search_docs")
            else:
                store.conn.execute("DELETE FROM entities_fts")
    finally:
        store.close()


def found(cli: Cli, query: str) -> list[str]:
    return [entity["name"] for entity in cli.ok("recall", query, "--json").json()["entities"]]


def three_memories(cli: Cli, monkeypatch: pytest.MonkeyPatch) -> None:
    """Two written while recall was fts (no vectors), one in hybrid (vectors stored with its row)."""
    monkeypatch.setenv("MEMESH_RECALL_MODE", "fts")
    cli.ok("remember", "--name", "rollout", "--type", "t", "--obs", "kubernetes rollout", "--obs", "canary first")
    cli.ok("remember", "--name", "vacuum", "--type", "t", "--obs", "postgres vacuum")
    monkeypatch.setenv("MEMESH_RECALL_MODE", "hybrid")
    cli.ok("remember", "--name", "hobby", "--type", "t", "--obs", "John trains kickboxing twice a week")


@needs_semantic
def test_fts_in_hybrid_rebuilds_the_keyword_index_and_writes_no_vector(
    cli: Cli, memesh_env: Path, backend: Backend, monkeypatch: pytest.MonkeyPatch
) -> None:
    three_memories(cli, monkeypatch)
    before = vector_rows(backend, memesh_env)
    assert list(before.values()) == [(embedding.MODEL, embedding.DIMENSIONS)]
    empty_the_keyword_index(backend, memesh_env)
    assert cli.ok("reindex", "--fts", "--json").json() == {"entities": 3}
    assert cli.ok("reindex", "--fts").out == "Keyword index rebuilt (3 entities).\n"
    assert keyword_index(backend, memesh_env) == (3, 3)
    assert vector_rows(backend, memesh_env) == before  # no vectors for the two without, the third's untouched


@needs_semantic
def test_vectors_fill_exactly_the_missing_ones_and_a_second_run_embeds_none(
    cli: Cli, memesh_env: Path, backend: Backend, monkeypatch: pytest.MonkeyPatch
) -> None:
    three_memories(cli, monkeypatch)
    written_in_hybrid = vector_rows(backend, memesh_env)
    assert "vacuum" not in found(cli, "database maintenance")  # no word of the query is in it, and no vectors
    assert cli.ok("reindex", "--vectors", "--json").json() == {"entities": 3, "embedded": 2}
    rows = vector_rows(backend, memesh_env)
    filled = [(embedding.MODEL, 2 * embedding.DIMENSIONS), (embedding.MODEL, embedding.DIMENSIONS)]
    assert sorted(rows.values()) == sorted([*filled, *written_in_hybrid.values()])
    assert {entity_id: rows[entity_id] for entity_id in written_in_hybrid} == written_in_hybrid
    assert cli.ok("reindex", "--vectors", "--json").json() == {"entities": 3, "embedded": 0}
    assert cli.ok("reindex", "--vectors").out == "Every memory already has vectors (3 entities).\n"
    assert "vacuum" in found(cli, "database maintenance")  # what was written before hybrid is found by meaning now


@needs_semantic
def test_fts_and_vectors_together_do_both_and_say_so(
    cli: Cli, memesh_env: Path, backend: Backend, monkeypatch: pytest.MonkeyPatch
) -> None:
    three_memories(cli, monkeypatch)
    empty_the_keyword_index(backend, memesh_env)
    out = cli.ok("reindex", "--fts", "--vectors")
    assert out.out == "Keyword index rebuilt (3 entities).\nVectors stored for 2 of 3 memories.\n"
    assert keyword_index(backend, memesh_env) == (3, 3)
    assert len(vector_rows(backend, memesh_env)) == 3


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@needs_semantic
def test_a_terminal_sees_the_same_progress_line_for_vectors(cli: Cli, monkeypatch: pytest.MonkeyPatch) -> None:
    three_memories(cli, monkeypatch)
    terminal = Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    assert cli.ok("reindex", "--vectors").out == "Vectors stored for 2 of 3 memories.\n"
    assert terminal.getvalue() == "\r\x1b[KReindexing: 2/2 (100%)\r\x1b[K"


@pytest.mark.parametrize("mode", ["fts", "broad"])
def test_vectors_outside_hybrid_exit_1_naming_why_and_write_nothing(
    cli: Cli, memesh_env: Path, backend: Backend, monkeypatch: pytest.MonkeyPatch, mode: str
) -> None:
    monkeypatch.setenv("MEMESH_RECALL_MODE", mode)
    cli.ok("remember", "--name", "vacuum", "--type", "t", "--obs", "postgres vacuum")
    empty_the_keyword_index(backend, memesh_env)
    said = cli("reindex", "--fts", "--vectors")
    assert said.code == 1 and said.out == ""
    assert said.err == (
        f"Error: recall mode is {mode}; vectors are used only in hybrid: memesh config set recallMode hybrid\n"
    )
    body = cli("reindex", "--vectors", "--json")
    assert body.code == 1
    assert body.json() == {
        "reason": "not-hybrid",
        "recallMode": mode,
        "error": f"recall mode is {mode}; vectors are used only in hybrid: memesh config set recallMode hybrid",
        "errorCode": "operation.failed",
    }
    # Refused before anything was written: not even the keyword index --fts asked for beside it.
    assert keyword_index(backend, memesh_env) == (1, 0)
    assert vector_rows(backend, memesh_env) == {}


def test_vectors_without_the_semantic_extra_exit_1_naming_the_install(
    cli: Cli, memesh_env: Path, backend: Backend, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(embedding, "model_folder", lambda: None)
    monkeypatch.setenv("MEMESH_RECALL_MODE", "hybrid")
    cli.ok("remember", "--name", "vacuum", "--type", "t", "--obs", "postgres vacuum")
    body = cli("reindex", "--vectors", "--json")
    assert body.code == 1
    assert body.json()["reason"] == "semantic-extra-missing"
    assert body.json()["errorCode"] == "operation.failed"
    assert body.json()["error"].startswith(
        "the semantic extra is not installed (pip install 'memesh[semantic]'); hybrid recall answers as broad"
    )
    assert vector_rows(backend, memesh_env) == {}


@pytest.mark.one_engine("the usage error is refused before any database is opened")
def test_no_flag_is_a_usage_error_naming_both_indexes(cli: Cli) -> None:
    said = cli("reindex")
    assert said.code == 2 and said.out == ""
    assert said.err.splitlines()[0] == (
        "Error: say which index to rebuild: memesh reindex --fts (the keyword index), "
        "memesh reindex --vectors (hybrid recall's vectors), or both"
    )


@needs_semantic
def test_doctor_in_hybrid_counts_the_memories_without_vectors_until_reindex_stores_them(
    memesh_process: Process,
) -> None:
    memesh_process.env["MEMESH_RECALL_MODE"] = "fts"
    assert memesh_process("remember", "--name", "a", "--type", "t", "--obs", "postgres vacuum").code == 0
    assert "vectors" not in [check["id"] for check in memesh_process("doctor", "--json").json()["checks"]]
    memesh_process.env["MEMESH_RECALL_MODE"] = "hybrid"
    assert memesh_process("remember", "--name", "b", "--type", "t", "--obs", "kickboxing").code == 0
    doctor = memesh_process("doctor")
    line = f"  [warn] Hybrid vectors: 1 of 2 memories have no vectors from {embedding.MODEL}"
    assert f"{line} (recall finds them by keywords only) — run `memesh reindex --vectors`\n" in doctor.out
    reindexed = memesh_process("reindex", "--vectors", "--json")
    assert (reindexed.code, reindexed.json()) == (0, {"entities": 2, "embedded": 1})
    [row] = [check for check in memesh_process("doctor", "--json").json()["checks"] if check["id"] == "vectors"]
    assert row == {
        "id": "vectors",
        "title": "Hybrid vectors",
        "status": "pass",
        "detail": f"all 2 memories have vectors from {embedding.MODEL}",
    }
