"""Hook events run in process through the door, on their own resources, as the runner runs them."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator
from returns.result import Result

from memesh import hosts
from memesh.app import dispatch
from memesh.app.operations.hooks import BY_EVENT
from memesh.app.resources import Resources
from memesh.context import CallContext
from memesh.errors import MemeshError
from memesh.schema import files as schemas
from memesh.store.open import Store
from tests.backends import Backend
from tests.calls import call

ANSWER = Draft202012Validator(schemas.load("hooks/answer.output"))


@dataclass
class Hooks:
    """A MeMesh folder (the test's, in the environment), a session folder, and the hook environment."""

    db: Path
    folder: Path
    env: dict[str, str] = field(default_factory=dict)
    host: str | None = "claude-code"
    backend: Backend = field(default_factory=lambda: Backend("sqlite"))

    def _module(self) -> hosts.Host:
        return hosts.module(self.host) if self.host else hosts.fallback()

    def __call__(self, event: str, payload: dict[str, Any]) -> Result[Any, MemeshError]:
        """The canonical answer of the host's payload: normalized by its host's module, then the door."""
        canonical, _ = self._module().normalize(event, payload)
        resources = Resources.for_hook(self.env, str(self.folder))
        try:
            return dispatch.run(BY_EVENT[event], resources, canonical, resources.hook_context(self.host))
        finally:
            resources.close()

    def answer(self, event: str, payload: dict[str, Any]) -> dict[str, Any]:
        """The answer as the runner hands it on: the canonical answer (held to its schema here), with its output
        rendered as the host reads it."""
        found: dict[str, Any] = self(event, payload).unwrap()
        assert [error.message for error in ANSWER.iter_errors(found)] == []
        if "output" in found:
            module = self._module()
            _, native = module.normalize(event, payload)
            rendered = module.render(native, found["output"])
            found = {**found, "output": rendered} if rendered is not None else {"outcomes": found["outcomes"]}
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
    env = {
        "MEMESH_DAEMON": "0",
        "MEMESH_DIR": str(memesh_env.parent),
        "MEMESH_DB_PATH": str(memesh_env),
        "CLAUDECODE": "1",
    }
    yield Hooks(memesh_env, folder, env, backend=backend)
