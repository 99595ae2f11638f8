"""forget: archive a memory (never delete it), or remove one of its observations."""

from __future__ import annotations

from contextlib import AbstractContextManager
from typing import Protocol

from returns.result import Failure, Result, Success

from memesh.context import CallContext
from memesh.core import access
from memesh.core.remembering import observation_hash
from memesh.errors import MemeshError
from memesh.generated.tools.forget_input import ForgetInput
from memesh.generated.tools.forget_output import ForgetOutput
from memesh.model import ARCHIVED, Entity

# Snapshots the Stop hook rewrites: a forgotten line must not come back on the next Stop.
_SNAPSHOT_TYPE = "session-insight"
_SNAPSHOT_SUFFIXES = ("-files", "-fixes", "-summary")


class ForgetStore(Protocol):
    def transaction(self) -> AbstractContextManager[None]: ...
    def find(self, name: str) -> Entity | None: ...
    def set_status(self, name: str, status: str) -> bool: ...
    def remove_observation(self, entity_id: int, text: str) -> bool: ...
    def update_metadata(self, entity_id: int, metadata: dict[str, object]) -> None: ...


def is_snapshot(entity: Entity) -> bool:
    return (
        entity.type == _SNAPSHOT_TYPE
        and entity.name.startswith("session-")
        and entity.name.endswith(_SNAPSHOT_SUFFIXES)
    )


def _visible(ctx: CallContext, entity: Entity) -> bool:
    provenance = entity.metadata.get("provenance")
    author = provenance.get("author") if isinstance(provenance, dict) else None
    return access.may_see(ctx.caller, entity.namespace, author, entity.tags)


def forget(store: ForgetStore, request: ForgetInput, *, ctx: CallContext) -> Result[ForgetOutput, MemeshError]:
    """Archive the memory, or remove the earliest observation with exactly the given text; Failure
    (resource.not-found) when there is no such memory or observation, so nothing changed."""
    name = request["name"]
    text = request.get("observation")
    with store.transaction():
        entity = store.find(name)
        if entity is not None and not _visible(ctx, entity):  # another member's personal memory is not there for it
            entity = None
        if entity is None:
            body = {"archived": False} if text is None else {"observation_removed": False, "entity_found": False}
            return Failure(MemeshError.not_found(f'Entity "{name}" not found', name=name, **body))
        if text is None:
            if entity.status == ARCHIVED:  # it stays archived; nothing changed, said so the CLI can exit 1 for it
                return Success({"archived": True, "already_archived": True, "name": name})
            store.set_status(name, ARCHIVED)
            return Success({"archived": True, "name": name})
        if not store.remove_observation(entity.id, text):
            count = len(entity.observations)
            return Failure(
                MemeshError.not_found(
                    f'Entity "{name}" has no observation matching that text ({count} observation(s) present).',
                    name=name,
                    observation_removed=False,
                    entity_found=True,
                    remaining_observations=count,
                )
            )
        if is_snapshot(entity):
            hashes = entity.metadata.get("forgotten_observation_hashes")
            known = [h for h in hashes if isinstance(h, str)] if isinstance(hashes, list) else []
            digest = observation_hash(text)
            if digest not in known:
                store.update_metadata(entity.id, {**entity.metadata, "forgotten_observation_hashes": [*known, digest]})
    return Success(
        {
            "observation_removed": True,
            "name": name,
            "observation": text,
            "remaining_observations": len(entity.observations) - 1,
            "entity_found": True,
        }
    )
