"""benchmarks/scale.py's --db run and its match counts (what it measures, never how fast)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"


@pytest.fixture(scope="module")
def scale() -> ModuleType:
    sys.path.insert(0, str(BENCHMARKS))  # scale.py imports its sibling _common
    try:
        spec = importlib.util.spec_from_file_location("bench_scale", BENCHMARKS / "scale.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module
    finally:
        sys.path.remove(str(BENCHMARKS))


def seeded(scale: Any, folder: Path, count: int) -> Path:
    path = folder / "seeded.db"
    store = scale.open_store(path)
    try:
        scale.bulk_load(scale.Tools(store), scale.Corpus(7), count)
    finally:
        store.close()
    return path


def test_db_run_measures_a_copy_and_leaves_the_file_as_it_was(scale: Any, tmp_path: Path) -> None:
    path = seeded(scale, tmp_path, 60)
    before = path.read_bytes()
    figures = scale.run(0, 7, 3, profile=False, export=False, database=path)
    assert path.read_bytes() == before  # remember and recall's touches went to the copy
    assert figures["n"] == 60
    assert figures["copied_from"] == str(path)
    assert "bulk_load_seconds" not in figures
    for case in ("recall_1_term", "recall_2_terms", "recall_5_terms", "recall_2_terms_tag_filter"):
        matched = figures[case]["matched"]
        assert 0 <= matched["p10"] <= matched["p50"] <= matched["p90"] <= 61  # 60, and one remembered per sample
    assert "matched" not in figures["recall_tag_only"]  # a listing searches nothing


def test_the_queries_are_those_a_seeding_run_draws(scale: Any) -> None:
    after = scale.corpus_after(7, 40)
    seeding = scale.Corpus(7)
    for index in range(40):
        seeding.memory(index)
    assert [after.query(2) for _ in range(5)] == [seeding.query(2) for _ in range(5)]


def test_matches_counted_are_the_memories_holding_the_word(scale: Any, tmp_path: Path) -> None:
    store = scale.open_store(seeded(scale, tmp_path, 80))
    try:
        corpus = scale.corpus_after(7, 80)
        words = [corpus.common_term() for _ in range(5)]
        log = scale.SearchLog(store)
        try:
            for word in words:
                log.recall_starts()
                scale.Tools(store, agent_view=True)("recall", {"query": word})
        finally:
            log.restore()
        assert "search" not in vars(store)  # the store's own method is back
        # A one-word fts query matches every memory whose index holds the word: the index's own document count.
        frequencies = store.doc_freq(words)
        assert log.matched() == [frequencies.get(word, 0) for word in words]
    finally:
        store.close()
