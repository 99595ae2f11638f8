"""Writing memories into a hook test's database through the same gate every transport uses."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from memesh.context import CallContext
from tests.calls import call

from .conftest import HookEnv


def remember(env: HookEnv, name: str, kind: str = "decision", tags: list[str] | None = None, **extra: Any) -> int:
    ctx = CallContext(source_host="test", agent_view=False, now=datetime.now(UTC), project=lambda: env.project)
    store = env.store()
    try:
        body = {
            "name": name,
            "type": kind,
            "observations": [f"about {name}"],
            "tags": tags if tags is not None else [f"project:{env.project}"],
            **extra,
        }
        return int(call("remember", store, body, ctx).unwrap()["entityId"])
    finally:
        store.close()
