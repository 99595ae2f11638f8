"""Hook events run in process through the door, on their own resources, as the runner runs them."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from returns.result import Result

from memesh.app import dispatch
from memesh.app.operations.hooks import BY_EVENT
from memesh.app.resources import Resources
from memesh.context import CallContext
from memesh.errors import MemeshError
from memesh.store.open import Store
from tests.backends import Backend
from tests.calls import call


@dataclass
class Hooks:
    """A MeMesh folder (the test's, in the environment), a session folder, and the hook environment."""

    db: Path
    folder: Path
    env: dict[str, str] = field(default_factory=dict)
    host: str | None = "claude-code"
    backend: Backend = field(default_factory=lambda: Backend("sqlite"))

    def __call__(self, event: str, payload: dict[str, Any]) -> Result[Any, MemeshError]:
        resources = Resources.for_hook(self.env, str(self.folder))
        try:
            return dispatch.run(BY_EVENT[event], resources, payload, resources.hook_context(self.host))
        finally:
            resources.close()

    def answer(self, event: str, payload: dict[str, Any]) -> dict[str, Any]:
        found: dict[str, Any] = self(event, payload).unwrap()
        return found

    @property
    def project(self) -> str:
        resources = Resources.for_hook(self.env, str(self.folder))
        return resources.hooks.project_of(str(self.folder))

    def store(self) -> Store:
        return self.backend.open(self.db)

    def remember(self, name: str, kind: str = "decision", tags: list[str] | None = None) -> int:
        ctx = CallContext(source_host="test", agent_view=False, now=datetime.now(UTC), project=lambda: self.project)
        body = {"name": name, "type": kind, "observations": [f"about {name}"]}
        body["tags"] = tags if tags is not None else [f"project:{self.project}"]
        store = self.store()
        try:
            return int(call("remember", store, body, ctx).unwrap()["entityId"])
        finally:
            store.close()


@pytest.fixture
def hooks(memesh_env: Path, tmp_path: Path, backend: Backend) -> Iterator[Hooks]:
    folder = tmp_path / "proj"
    folder.mkdir()
    env = {"MEMESH_DIR": str(memesh_env.parent), "MEMESH_DB_PATH": str(memesh_env), "CLAUDECODE": "1"}
    yield Hooks(memesh_env, folder, env, backend=backend)
