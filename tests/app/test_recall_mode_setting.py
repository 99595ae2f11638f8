"""The recall mode in effect, as the composition root reads it: MEMESH_RECALL_MODE, else config.json, else fts."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memesh.adapters import embedding
from memesh.app.resources import Resources


@pytest.fixture
def no_env_mode(memesh_env: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.delenv("MEMESH_RECALL_MODE", raising=False)
    return memesh_env.parent / "config.json"


def test_without_config_json_or_environment_the_mode_is_fts(no_env_mode: Path) -> None:
    assert Resources().recall_mode().row == "fts (default)"


def test_config_json_sets_the_mode(no_env_mode: Path) -> None:
    no_env_mode.parent.mkdir(parents=True, exist_ok=True)
    no_env_mode.write_text(json.dumps({"recallMode": "broad"}))
    assert Resources().recall_mode().row == "broad (config.json)"


def test_the_environment_wins_and_config_json_is_not_read(no_env_mode: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    no_env_mode.parent.mkdir(parents=True, exist_ok=True)
    no_env_mode.write_text("not json")  # would be reported as broken if it were read
    monkeypatch.setenv("MEMESH_RECALL_MODE", "broad")
    assert Resources().recall_mode().row == "broad (env MEMESH_RECALL_MODE)"


def test_hybrid_without_the_extra_is_broad_with_the_reason(no_env_mode: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(embedding, "model_folder", lambda: None)
    monkeypatch.setenv("MEMESH_RECALL_MODE", "hybrid")
    setting = Resources().recall_mode()
    assert (setting.value, setting.requested) == ("broad", "hybrid")
    assert Resources().semantic() is None
