"""remember: store a memory, or append to / replace the one with that name."""

from __future__ import annotations

from contextlib import AbstractContextManager
from typing import Any, Protocol

from returns.result import Failure, Result, Success

from memesh.context import CallContext
from memesh.core import remembering
from memesh.core.clean import clean_name
from memesh.errors import MemeshError
from memesh.generated.tools.remember_input import RememberInput
from memesh.generated.tools.remember_output import RememberOutput
from memesh.model import Entity, EntityWrite


class RememberStore(Protocol):
    def transaction(self) -> AbstractContextManager[None]: ...
    def find(self, name: str) -> Entity | None: ...
    def existing_names(self, names: list[str]) -> set[str]: ...
    def save(self, write: EntityWrite) -> int: ...
    def create_relation(self, from_name: str, to_name: str, relation_type: str) -> bool: ...
    def archive_if_active(self, name: str) -> bool: ...
    def title_of(self, entity_id: int) -> str | None: ...


def remember(store: RememberStore, request: RememberInput, *, ctx: CallContext) -> Result[RememberOutput, MemeshError]:
    """Store or extend one memory in one transaction; Failure(validation.bad-body) for a request the schema lets
    through but the rules refuse, Failure(operation.failed) for a replace the stored memory refuses."""
    match remembering.resolve(request):
        case Failure() as refused:
            return refused
        case Success(resolved):
            pass
    with store.transaction():
        existing = store.find(resolved.name)
        present = store.existing_names([target for target, _ in resolved.relations])
        match remembering.plan(existing, resolved, present, now=ctx.now, source_host=ctx.source_host):
            case Failure() as refused:
                return refused
            case Success(plan):
                pass
        entity_id = store.save(plan.write)
        # Reported from what the store did: a relation that already existed, or a target already archived, is not
        # something this call created or superseded.
        created = [
            (target, kind) for target, kind in plan.relations if store.create_relation(plan.write.name, target, kind)
        ]
        superseded = [target for target in plan.supersede if store.archive_if_active(target)]
        title = store.title_of(entity_id)
    output: RememberOutput = {
        "stored": True,
        "entityId": entity_id,
        "name": plan.write.name,
        "title": title,
        "type": plan.write.type,
        "observations": plan.report["observations"],
        "tags": plan.report["tags"],
        "relations": len(created),
    }
    if created:
        output["relationsCreated"] = [{"to": target, "type": kind} for target, kind in created]
    if "movedFromNamespace" in plan.report:
        output["movedFromNamespace"] = plan.report["movedFromNamespace"]
    if superseded:
        output["superseded"] = superseded
    if plan.relation_errors:
        output["relationErrors"] = plan.relation_errors
    if "replaced" in plan.report:
        output["replaced"] = plan.report["replaced"]
    if resolved.derived is not None:
        derived = resolved.derived
        output["derived"] = {
            "name": plan.write.name,
            "type": plan.write.type,
            "title": derived.title,
            "observations": derived.observations,
        }
    return Success(output)


def remember_text(store: RememberStore, arguments: dict[str, Any], *, ctx: CallContext) -> Result[Any, MemeshError]:
    """remember for free text sent with explicit observations under an explicit name (the CLI's `memesh remember
    "<text>" --name n --obs …`): the title the text derives names a new memory but never replaces the title of one
    that exists, because only a title the caller states replaces a stored one. The look-up and the write are one
    transaction, so a memory another process creates in between cannot lose its title."""
    from memesh.app import dispatch  # the validated entry point, as every transport calls it

    with store.transaction():
        name = arguments.get("name")
        if "title" in arguments and isinstance(name, str) and store.find(clean_name(name)) is not None:
            arguments = {key: value for key, value in arguments.items() if key != "title"}
        return dispatch.call("remember", store, arguments, ctx)  # type: ignore[arg-type]
