"""remember: store a memory, or append to / replace the one with that name."""

from __future__ import annotations

from collections.abc import Iterable
from contextlib import AbstractContextManager
from dataclasses import replace
from typing import TYPE_CHECKING, Protocol, cast

from returns.result import Failure, Result, Success

from memesh.context import CallContext
from memesh.core import access, remembering
from memesh.errors import MemeshError
from memesh.model import Entity, EntityWrite, Filters

if TYPE_CHECKING:
    from memesh.generated.cli.remember_typed_input import RememberTypedInput
    from memesh.generated.tools.remember_input import RememberInput
    from memesh.generated.tools.remember_output import RememberOutput


class RememberStore(Protocol):
    def transaction(self) -> AbstractContextManager[None]: ...
    def find(self, name: str) -> Entity | None: ...
    def existing_names(self, names: Iterable[str], people: Filters | None = None) -> set[str]: ...
    def save(self, write: EntityWrite) -> int: ...
    def create_relation(
        self, from_name: str, to_name: str, relation_type: str, *, author: str | None = None
    ) -> bool: ...
    def archive_if_active(self, name: str) -> bool: ...
    def title_of(self, entity_id: int) -> str | None: ...


def _outside_scope(ctx: CallContext, existing: Entity | None, tags: list[str]) -> MemeshError | None:
    """auth.forbidden when the caller may not write this memory: another member's `personal` memory, or (for a
    member scoped to projects) a memory outside its projects."""
    if ctx.caller is None:
        return None
    if existing is not None:
        provenance = existing.metadata.get("provenance")
        author = provenance.get("author") if isinstance(provenance, dict) else None
        if not access.may_see(ctx.caller, existing.namespace, author, existing.tags):
            return access.forbidden(f'member "{ctx.caller.name}" may not write "{existing.name}"')
    return access.may_write(ctx.caller, existing.tags if existing is not None else None, tags)


def remember(
    store: RememberStore, request: RememberInput, *, ctx: CallContext, title_derived: bool = False
) -> Result[RememberOutput, MemeshError]:
    """Store or extend one memory in one transaction; Failure(validation.bad-body) for a request the schema lets
    through but the rules refuse, Failure(operation.failed) for a replace the stored memory refuses.

    `title_derived`: the request's title was derived from free text (`remember_typed`, for `memesh remember
    "<text>" --name n --obs …`), so it names a new memory but leaves an existing memory's title as it is.
    """
    match remembering.resolve(request):
        case Failure() as refused:
            return refused
        case Success(resolved):
            pass
    if title_derived:
        resolved = replace(resolved, title_derived=True)
    with store.transaction():
        existing = store.find(resolved.name)
        refused_by_scope = _outside_scope(ctx, existing, resolved.tags or [])
        if refused_by_scope is not None:
            return Failure(refused_by_scope)
        # A relation's target the caller may not see (outside a member's projects, another member's `personal`
        # memory) is not there for it: no relation to it, and a `supersedes` never archives it.
        people = access.scoped(Filters(), ctx.caller) if ctx.caller is not None else None
        present = store.existing_names([target for target, _ in resolved.relations], people)
        match remembering.plan(
            existing,
            resolved,
            present,
            now=ctx.now,
            source_host=ctx.source_host,
            author=ctx.author(),
            remote=ctx.caller is not None,
        ):
            case Failure() as refused:
                return refused
            case Success(plan):
                pass
        entity_id = store.save(plan.write)
        # Reported from what the store did: a relation that already existed, or a target already archived, is not
        # something this call created or superseded.
        created = [
            (target, kind)
            for target, kind in plan.relations
            if store.create_relation(plan.write.name, target, kind, author=plan.write.author)
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
    warnings = _type_warnings(existing, resolved, plan.write.type)
    if warnings:
        output["warnings"] = warnings
    if resolved.derived is not None:
        derived = resolved.derived
        output["derived"] = {
            "name": plan.write.name,
            "type": plan.write.type,
            "title": derived.title,
            "observations": derived.observations,
        }
    return Success(output)


def _type_warnings(existing: Entity | None, resolved: remembering.Resolved, stored: str) -> list[str]:
    """What the call's type did that the caller may not expect: a near-miss type stored as a new type, or a type
    given to an existing memory, which keeps its own (only a replace retypes)."""
    from memesh.core import type_hints

    if resolved.type is None:
        return []
    if existing is not None and stored != resolved.type:
        return [type_hints.kept_type_warning(resolved.name, stored)]
    known = type_hints.near_miss(stored) if existing is None or resolved.replace else None
    return [type_hints.near_miss_warning(stored, known)] if known is not None else []


def remember_typed(
    store: RememberStore, request: RememberTypedInput, /, *, ctx: CallContext
) -> Result[RememberOutput, MemeshError]:
    """`memesh remember` as typed: the form (note, text with flags, structured) is decided from what was given
    (`memesh.core.text_memory`), then stored as `remember` stores it; Failure(validation.bad-body) for flags that
    do not make a memory, or a request over the remember tool's own limits (named by its fields, as the gate
    names them)."""
    from memesh.core.text_memory import as_typed

    match as_typed(request):
        case Failure() as refused:
            return refused
        case Success(typed):
            pass
    problem = _over_the_tools_limits(typed.request)
    if problem is not None:
        return Failure(problem)
    return remember(store, cast("RememberInput", typed.request), ctx=ctx, title_derived=typed.title_derived)


def _over_the_tools_limits(request: dict[str, object]) -> MemeshError | None:
    """The request this command built from the text (a note, derived observations) checked against the remember
    tool's input schema: what was typed passed the gate, what was derived from it has not yet."""
    from memesh.schema import files, validation

    problems = validation.located_issues(files.load("tools/remember.input"), request)
    return MemeshError.bad_body("; ".join(validation.formatted(problems))) if problems else None
