"""recall splits and folds its query once: the frequencies, the noise guard and the match plan read those terms."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest

from memesh.core import query, terms
from memesh.ops import recall

if TYPE_CHECKING:
    from tests.conftest import Caller


def test_a_recall_splits_its_query_once_and_finds_what_the_terms_match(
    tools: Caller, monkeypatch: pytest.MonkeyPatch
) -> None:
    for n in range(30):  # enough memories for the noise guard to read the frequencies of every term
        tools.ok("remember", {"name": f"m{n}", "type": "fact", "observations": [f"the kettle number {n} boils"]})
    tools.ok("remember", {"name": "toast", "type": "fact", "observations": ["the toaster pops"]})
    splits: list[str] = []

    def counted(text: str) -> list[str]:
        splits.append(text)
        return terms.query_terms(text)

    for module in (recall, query):  # each name the query could be split through on the way to the store
        monkeypatch.setattr(module, "query_terms", counted)
    found: dict[str, Any] = tools.ok("recall", {"query": "The TOASTER pops", "limit": 3})
    assert splits == ["The TOASTER pops"]
    assert [entity["name"] for entity in found["entities"]] == ["toast"]
