"""Seeding evidence for the curation tests: memories of the digest types, written as the hooks would store them."""

from __future__ import annotations

from typing import Any

from memesh.model import EntityWrite
from memesh.store.open import Store
from tests.conftest import TEST_PROJECT


def seed(
    store: Store,
    name: str,
    *,
    created_at: str = "2026-11-24 10:00:00",
    entity_type: str = "commit",
    project: str = TEST_PROJECT,
    metadata: dict[str, Any] | None = None,
    observations: tuple[str, ...] = ("fix: a change worth a digest line",),
) -> int:
    with store.transaction():
        return store.save(
            EntityWrite(
                entity_id=None,
                name=name,
                type=entity_type,
                title=None,
                namespace="personal",
                status="active",
                metadata={"signal_score": 0.4, **(metadata or {})},
                observations=observations,
                tags=(f"project:{project}", "commit"),
                created_at=created_at,
            )
        )


def seed_week(store: Store, count: int = 5, prefix: str = "commit", day: str = "2026-11-24") -> list[int]:
    """`count` commits of one ISO week (2026-W48 by default)."""
    return [seed(store, f"{prefix}-{i}", created_at=f"{day} 10:{i:02d}:00") for i in range(count)]


def digest_result(**overrides: Any) -> dict[str, Any]:
    return {
        "name": "week-48-digest",
        "type": "digest",
        "observations": ["Five small fixes landed in the parser."],
        "tags": ["topic:parser"],
        **overrides,
    }
