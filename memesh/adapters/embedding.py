"""The semantic signal of `hybrid` recall: WordLlama's static token embeddings, read from the files its wheel ships.

`pip install memesh[semantic]` installs the `wordllama` package, whose wheel carries the model (the 32,000 token
vectors of `l2_supercat_256`, 16 MB of float16, and the Llama 2 tokenizer it was trained with). Nothing is ever
downloaded: the package's own loader looks for a `tokenizer/` folder where its wheel ships `tokenizers/` and then
tries to fetch it, so this module never imports `wordllama` and reads those two files itself, with `tokenizers` and
`numpy` (both dependencies of wordllama). A text's embedding is WordLlama's: the mean of its tokens' vectors, made
unit length.

A memory is stored as one vector per observation (a question usually matches one thing a memory says, not the
average of all of it), each int8-quantized (256 bytes), all of a memory's in one blob. Its similarity to a query
is the best cosine among them.

Everything heavy is imported on first use, so a process that never recalls in hybrid mode pays nothing for it.
"""

from __future__ import annotations

import functools
import importlib.util
import json
import struct
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

MODEL = "wordllama-l2_supercat-256"
DIMENSIONS = 256
_WEIGHTS = Path("weights") / "l2_supercat_256.safetensors"
_TOKENIZER = Path("tokenizers") / "l2_supercat_tokenizer_config.json"
_TENSOR = "embedding.weight"


class Unavailable(Exception):
    """The semantic extra is not installed (or its files are not where its wheel puts them)."""


def model_folder() -> Path | None:
    """The installed wordllama package's folder when it holds the model files, found without importing it."""
    try:
        spec = importlib.util.find_spec("wordllama")
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    for location in spec.submodule_search_locations:
        folder = Path(location)
        if (folder / _WEIGHTS).is_file() and (folder / _TOKENIZER).is_file():
            return folder
    return None


def missing_reason() -> str | None:
    """Why hybrid recall cannot run here (None when it can), in words for `doctor` and `config list`."""
    if model_folder() is None:
        return "the semantic extra is not installed (pip install 'memesh[semantic]')"
    for module in ("numpy", "tokenizers"):
        if importlib.util.find_spec(module) is None:
            return f"the semantic extra is incomplete: {module} is not installed (pip install 'memesh[semantic]')"
    return None


def _token_matrix(path: Path) -> NDArray[np.float16]:
    """The safetensors file's embedding matrix, memory-mapped (only the rows a text uses are ever read)."""
    import numpy as np

    with path.open("rb") as handle:
        (header_size,) = struct.unpack("<Q", handle.read(8))
        header: dict[str, Any] = json.loads(handle.read(header_size))
    tensor = header[_TENSOR]
    if tensor["dtype"] != "F16" or len(tensor["shape"]) != 2 or tensor["shape"][1] != DIMENSIONS:
        raise Unavailable(f"unexpected model tensor in {path}: {tensor['dtype']} {tensor['shape']}")
    start, _ = tensor["data_offsets"]
    rows, columns = tensor["shape"]
    matrix: NDArray[np.float16] = np.memmap(
        path, dtype=np.float16, mode="r", offset=8 + header_size + start, shape=(rows, columns)
    )
    return matrix


class WordLlama:
    """Embeds texts and compares a query with stored memories. Build it with `load()` (one per process)."""

    model = MODEL
    dimensions = DIMENSIONS  # one int8 per dimension: the bytes of one text's vector

    def __init__(self, folder: Path) -> None:
        from tokenizers import Tokenizer

        self._matrix = _token_matrix(folder / _WEIGHTS)
        self._tokenizer = Tokenizer.from_file(str(folder / _TOKENIZER))
        self._tokenizer.no_padding()
        self._tokenizer.no_truncation()

    def _unit_vectors(self, texts: Sequence[str]) -> NDArray[np.float32]:
        import numpy as np

        out = np.zeros((len(texts), DIMENSIONS), dtype=np.float32)
        last = self._matrix.shape[0] - 1
        for row, encoding in enumerate(self._tokenizer.encode_batch(list(texts), add_special_tokens=False)):
            if encoding.ids:
                ids = np.clip(np.asarray(encoding.ids, dtype=np.int64), 0, last)
                out[row] = self._matrix[ids].astype(np.float32).mean(axis=0)
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        norms[norms == 0] = 1.0
        result: NDArray[np.float32] = out / norms
        return result

    def embed(self, texts: Sequence[str]) -> bytes:
        """One blob holding each text's vector, int8, in order (b"" for no texts)."""
        import numpy as np

        if not texts:
            return b""
        vectors = self._unit_vectors(texts)
        scale = np.abs(vectors).max(axis=1, keepdims=True)
        scale[scale == 0] = 1.0
        return bytes(np.rint(vectors / scale * 127).astype(np.int8).tobytes())

    def similarities(self, query: str, blobs: Mapping[int, bytes]) -> dict[int, float]:
        """For each memory, the best cosine between the query and one of its stored vectors (memories whose blob
        holds none are left out)."""
        import numpy as np

        kept = [(entity_id, blob) for entity_id, blob in blobs.items() if blob and len(blob) % DIMENSIONS == 0]
        if not kept:
            return {}
        wanted = self._unit_vectors([query])[0]
        rows = np.frombuffer(b"".join(blob for _, blob in kept), dtype=np.int8).reshape(-1, DIMENSIONS)
        vectors = rows.astype(np.float32)
        norms = np.sqrt(np.einsum("ij,ij->i", vectors, vectors))
        norms[norms == 0] = 1.0
        cosines = (vectors @ wanted) / norms
        starts = np.cumsum([0] + [len(blob) // DIMENSIONS for _, blob in kept[:-1]])
        best = np.maximum.reduceat(cosines, starts)
        return {entity_id: float(value) for (entity_id, _), value in zip(kept, best, strict=True)}


@functools.cache
def load() -> WordLlama:
    """The process's one model (its files are read once); Unavailable when the extra is not installed."""
    reason = missing_reason()
    folder = model_folder()
    if reason is not None or folder is None:
        raise Unavailable(reason or "the semantic extra is not installed")
    return WordLlama(folder)
