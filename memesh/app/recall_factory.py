"""The recall mode in effect and hybrid's semantic signal (issue 21), for recall, doctor and the store's writes. One
of the factories `Resources` is made of."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from memesh.app.resource_core import ResourceCore, Store
from memesh.records import dataclass

if TYPE_CHECKING:
    from memesh.adapters.embedding import WordLlama
    from memesh.core.settings import RecallModeSetting


class RecallFactory(ResourceCore):
    """The recall mode, read once, and the model hybrid loads once per process."""

    _recall_mode: RecallModeSetting | None = None

    def recall_mode(self) -> RecallModeSetting:
        """MEMESH_RECALL_MODE, else config.json's `recallMode`, else fts (read once; see core.settings)."""
        if self._recall_mode is None:
            env = os.environ.get("MEMESH_RECALL_MODE")
            stored = self.settings.stored
            if env is None and "recallMode" not in stored:
                from memesh.core.settings import recall_mode

                # No setting anywhere: the default, without loading the config reader on every recall.
                self._recall_mode = recall_mode({}, None, lambda: None)
            else:
                from memesh.adapters import config_file

                # The environment wins: config.json's value is not looked at when it names a mode.
                self._recall_mode = config_file.effective_recall_mode({} if env is not None else dict(stored))
        return self._recall_mode

    def semantic(self) -> WordLlama | None:
        """The semantic signal when hybrid is in effect (the model is loaded once per process), else None."""
        if self.recall_mode().value != "hybrid":
            return None
        from memesh.adapters.embedding import load

        return load()

    def write_embedder(self) -> WordLlama | None:
        """What the store embeds new memories with: the semantic signal, in hybrid only."""
        return self.semantic()

    def vector_model(self) -> str | None:
        """The model whose vectors hybrid recall reads, when hybrid is in effect (the model is not loaded), else
        None: what doctor counts the memories without vectors against."""
        if self.recall_mode().value != "hybrid":
            return None
        from memesh.adapters.embedding import MODEL

        return MODEL


@dataclass(frozen=True)
class RecallSetup:
    """What the recall operation uses (memesh.ops.recall.RecallUses)."""

    store: Store
    mode: str
    semantic: WordLlama | None


def recall_setup(resources: RecallFactory) -> RecallSetup:
    """The store, the recall mode in effect and its semantic signal."""
    return RecallSetup(resources.store, resources.recall_mode().value, resources.semantic())
