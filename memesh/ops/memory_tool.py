"""The Anthropic memory tool (`memory_20250818`) over the knowledge graph: view, create, str_replace, insert,
delete (archives) and rename, each checked in full before anything is written, each write one transaction."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import replace
from typing import Any, Protocol

from returns.result import Failure, Result, Success

from memesh.context import CallContext
from memesh.core import memory_lines, remembering
from memesh.core.clean import REDACTED, clean_all
from memesh.core.memory_commands import Create, Delete, Insert, Rename, StrReplace, View, parse
from memesh.core.memory_paths import ROOT, File, Folder, Location, Root, file_path, shown
from memesh.errors import MemeshError
from memesh.generated.memory_tool.command_input import MemoryCommandInput
from memesh.model import ACTIVE, ARCHIVED, NAMESPACES, Entity, EntityWrite, Listed, iso_time

NEW_MEMORY_TYPE = "note"
LISTING_HEADER = "Here're the files and directories up to 2 levels deep in {path}, excluding hidden items:"


class MemoryToolStore(Protocol):
    def transaction(self) -> AbstractContextManager[None]: ...
    def find(self, name: str) -> Entity | None: ...
    def save(self, write: EntityWrite) -> int: ...
    def set_status(self, name: str, status: str) -> bool: ...
    def active_counts(self) -> dict[str, int]: ...
    def active_listing(self, namespace: str) -> list[Listed]: ...
    def rename(self, entity_id: int, name: str, namespace: str, metadata: dict[str, Any]) -> None: ...


def memory_tool_command(
    store: MemoryToolStore, request: MemoryCommandInput, /, *, ctx: CallContext
) -> Result[str, MemeshError]:
    """One memory tool call through the door: `memory_command` on the tool_use block's input."""
    return memory_command(store, request["input"], ctx=ctx)


def memory_command(store: MemoryToolStore, raw: object, *, ctx: CallContext) -> Result[str, MemeshError]:
    """The text of the tool result; Failure(validation.bad-body) for input or a path the tool refuses,
    Failure(resource.not-found) for a memory that is not there, Failure(operation.failed) for an edit that cannot be
    made as asked (an ambiguous old_str, a name taken). Nothing is written on any Failure."""
    match parse(raw):
        case Failure() as refused:
            return refused
        case Success(command):
            pass
    match command:
        case View(Root()):
            return Success(_root(store.active_counts()))
        case View(Folder(namespace)):
            return Success(_folder(namespace, store.active_listing(namespace)))
        case View(File() as where, view_range):
            path = where.path
            return _active(store, where).bind(lambda e: memory_lines.view(path, e.observations, view_range))
        case Delete(where):
            return _delete(store, where)
        case Rename(source, destination):
            return _rename(store, source, destination, ctx)
        case Create(File() as where, text):
            return _create(store, where, text, ctx)
        case StrReplace(File(namespace, name) as where, old, new):
            path = file_path(namespace, name)
            return _edit(store, where, ctx, lambda e: memory_lines.str_replace(path, e.observations, old, new))
        case Insert(File(namespace, name) as where, line, text):
            path = file_path(namespace, name)
            return _edit(store, where, ctx, lambda e: memory_lines.insert(path, e.observations, line, text))
    raise AssertionError(f"unhandled memory command {command!r}")  # parse returns only the shapes above


def _not_found(path: str) -> Failure[MemeshError]:
    return Failure(MemeshError.not_found(f"Error: The path {path} does not exist. Please provide a valid path."))


def _active(store: MemoryToolStore, where: File) -> Result[Entity, MemeshError]:
    """The active memory at exactly this path. An archived one is gone from the model's side, and a name stored in
    another namespace is a different address, not a hit to borrow."""
    entity = store.find(where.name)
    if entity is None or entity.status != ACTIVE or entity.namespace != where.namespace:
        return _not_found(where.path)
    return Success(entity)


def _size(chars: int) -> str:
    return str(chars) if chars < 1024 else f"{chars / 1024:.1f}K"


def _root(counts: dict[str, int]) -> str:
    lines = [LISTING_HEADER.format(path=ROOT), ROOT]
    for namespace in NAMESPACES:
        count = counts.get(namespace, 0)
        lines.append(f"{ROOT}/{namespace}/\t{count} {'memory' if count == 1 else 'memories'}")
    return "\n".join(lines)


def _folder(namespace: str, listed: list[Listed]) -> str:
    folder = f"{ROOT}/{namespace}"
    lines = [LISTING_HEADER.format(path=folder), folder]
    used = 0
    for index, item in enumerate(listed):
        tags = f"\ttags: {', '.join(item.tags)}" if item.tags else ""
        line = f"{_size(item.size)}\t{file_path(namespace, item.name)}\t({item.type}){tags}"
        if used + len(line) > memory_lines.VIEW_MAX_CHARS:
            lines.append(f"[{len(listed) - index} more memories not listed]")
            break
        lines.append(line)
        used += len(line) + 1
    return "\n".join(lines)


def _write(
    store: MemoryToolStore, existing: Entity | None, where: File, lines: list[str], ctx: CallContext
) -> tuple[str, ...]:
    """Store `lines` as the memory's whole content through remember's rules (provenance, history of the version
    replaced, tags and type kept); returns the observations as stored (cleaned, a repeated line kept once)."""
    request = remembering.Resolved(
        name=where.name,
        type=None if existing else NEW_MEMORY_TYPE,
        title=None,
        observations=clean_all(lines),
        tags=None,
        relations=[],
        namespace=where.namespace,
        replace=existing is not None,
    )
    # An archived memory written again at its own path is brought back, as remember brings it back.
    current = replace(existing, status=ACTIVE) if existing and existing.status == ARCHIVED else existing
    plan = remembering.plan(
        current, request, set(), now=ctx.now, source_host=ctx.source_host, author=ctx.author()
    ).unwrap()
    store.save(plan.write)
    return plan.write.observations


def _create(store: MemoryToolStore, where: File, text: str, ctx: CallContext) -> Result[str, MemeshError]:
    lines = memory_lines.file_lines(text)
    match memory_lines.too_big(lines):
        case Failure() as refused:
            return refused
    with store.transaction():
        existing = store.find(where.name)
        if existing is not None and existing.namespace != where.namespace:
            # Names are unique database-wide: writing anyway would append to, or (since an explicit namespace moves a
            # memory) relocate, a memory at another address than the one named.
            return Failure(
                MemeshError.failed(
                    f"Error: {where.path} cannot be created: a memory with that name already exists in the "
                    f"{existing.namespace} namespace, and memory names are unique across namespaces. "
                    "Edit it there, or choose another name."
                )
            )
        stored = len(_write(store, existing, where, lines, ctx))
    message = f"File created successfully at: {where.path}"
    blank = sum(1 for line in text.removesuffix("\n").split("\n") if not line.strip())
    if blank:
        message += f" ({blank} blank line(s) left out: each line is one memory)"
    if stored < len(lines):
        message += f" ({len(lines) - stored} repeated line(s) stored once)"
    return Success(message)


def _cleaned_without_repeats(edit: memory_lines.Edit) -> Result[memory_lines.Edit, MemeshError]:
    """The edit's lines as they will be stored (cleaned), refused when one repeats another; a private key's lines,
    each redacted whole, collapse into one as they do on create."""
    cleaned = replace(edit, observations=clean_all(edit.observations))
    return memory_lines.no_repeats(cleaned, allowed=REDACTED).map(lambda _: cleaned)


def _edit(
    store: MemoryToolStore,
    where: File,
    ctx: CallContext,
    decide: Callable[[Entity], Result[memory_lines.Edit, MemeshError]],
) -> Result[str, MemeshError]:
    with store.transaction():
        match _active(store, where):
            case Failure() as missing:
                return missing
            case Success(entity):
                pass
        match decide(entity).bind(_cleaned_without_repeats):
            case Failure() as refused:
                return refused
            case Success(edit):
                pass
        stored = _write(store, entity, where, edit.observations, ctx)
    return Success(
        "The memory file has been edited. Here is the snippet showing the change (with line numbers):\n"
        + memory_lines.snippet(list(stored), edit.line)
    )


def _delete(store: MemoryToolStore, where: Location) -> Result[str, MemeshError]:
    match where:
        case Root():
            return memory_lines.bad(f"{ROOT} itself cannot be deleted.")
        case Folder():
            return memory_lines.bad(
                f"{shown(where)} is a namespace and cannot be deleted; delete its memories one by one."
            )
        case File():
            pass
    with store.transaction():
        match _active(store, where):
            case Failure() as missing:
                return missing
        # Archived, never destroyed: a model asked, not the person whose memory it is; they can restore it.
        store.set_status(where.name, ARCHIVED)
    return Success(f"Successfully deleted {where.path}")


def _rename(
    store: MemoryToolStore, source: Location, destination: Location, ctx: CallContext
) -> Result[str, MemeshError]:
    if not isinstance(source, File) or not isinstance(destination, File):
        return memory_lines.bad(
            f"rename moves one memory file to another memory file path; {ROOT} and its namespaces cannot be renamed."
        )
    with store.transaction():
        match _active(store, source):
            case Failure() as missing:
                return missing
            case Success(entity):
                pass
        taken = store.find(destination.name)
        if taken is not None and (taken.id != entity.id or destination.namespace == source.namespace):
            # Checked across every namespace: names are unique database-wide, and the same name in another namespace
            # is a move of this very memory, which is allowed.
            where = "" if taken.namespace == destination.namespace else f" in the {taken.namespace} namespace"
            return Failure(
                MemeshError.failed(
                    f"Error: The destination {destination.path} already exists{where}; memory names are unique "
                    "across namespaces."
                )
            )
        metadata = dict(entity.metadata)
        if destination.namespace != entity.namespace:
            metadata.update(previous_namespace=entity.namespace, namespace_moved_at=iso_time(ctx.now))
        store.rename(entity.id, destination.name, destination.namespace, metadata)
    return Success(f"Successfully renamed {source.path} to {destination.path}")
