"""import: merge an export bundle into the graph, as one transaction for the whole bundle."""

from __future__ import annotations

import sys
import traceback
from collections.abc import Callable, Iterable
from contextlib import AbstractContextManager
from typing import Any, Protocol, cast

from returns.result import Failure, Result, Success

from memesh.context import CallContext
from memesh.core import access, importing
from memesh.errors import MemeshError
from memesh.generated.cli.import_file_input import ImportFileInput
from memesh.generated.tools.import_input import ImportInput
from memesh.generated.tools.import_output import ImportOutput
from memesh.model import Entity, EntityWrite, Filters


class ImportStore(Protocol):
    def database_failure(self, exc: BaseException) -> MemeshError | None: ...
    def transaction(self) -> AbstractContextManager[None]: ...
    def find(self, name: str) -> Entity | None: ...
    def save(self, write: EntityWrite) -> int: ...
    def existing_names(self, names: Iterable[str], people: Filters | None = None) -> set[str]: ...
    def relate(self, from_name: str, to_name: str, relation_type: str) -> bool: ...


def import_bundle(
    store: ImportStore,
    request: ImportInput,
    *,
    ctx: CallContext,
    trust: bool = False,
    keep_metadata: bool = False,
    on_progress: Callable[[int, int], None] | None = None,
) -> Result[ImportOutput, MemeshError]:
    """Import every valid entry (bad ones are listed in `errors`), then the relations the bundle can reach.

    `trust` and `keep_metadata` are for the CLI restoring the owner's own file (`import_file`); MCP and HTTP never
    set them.
    `on_progress(done, total)` is told before each entry and once at the end (the CLI's progress line).
    Failure(validation.bad-body) for restore_archived with skip, Failure(operation.failed) for a bundle naming one
    memory twice — and then nothing is imported.
    """
    strategy = request["merge_strategy"]
    restore = request.get("restore_archived", False)
    if restore and strategy == "skip":
        return Failure(
            MemeshError.bad_body(
                'restore_archived (--restore-archived) only applies with merge strategy "append" or "overwrite"; '
                '"skip" leaves every existing entity untouched, so there is nothing to restore. Nothing was imported.'
            )
        )
    data: dict[str, Any] = dict(request["data"])
    entries: list[Any] = list(data.get("entities", []))
    twice = importing.duplicate_name(entries)
    if twice is not None:
        shown = twice if len(twice) <= 80 else twice[:80] + "…"
        return Failure(
            MemeshError.failed(
                f'This file names "{shown}" more than once. Nothing was imported. '
                "A file produced by `memesh export` names each memory once."
            )
        )
    options = importing.Options(
        strategy=strategy,
        namespace=request.get("namespace"),
        restore_archived=restore,
        trust=trust,
        keep_metadata=keep_metadata,
        # Who imports: a bundle's own author is kept for a local import (the owner restoring or merging files);
        # through a remote listener every memory is the member's, so no one writes in another teammate's name.
        author=ctx.author(),
        keep_author=ctx.caller is None,
    )
    counts = {"imported": 0, "overwritten": 0, "skipped": 0, "appended": 0, "kept_archived": 0}
    errors: list[str] = []
    queued: list[tuple[str, str, str]] = []
    report = on_progress or _unreported
    with store.transaction():
        for index, entry in enumerate(entries):
            report(index, len(entries))
            problem = importing.entry_problem(index, entry)
            if problem is not None:
                errors.append(problem)
                continue
            try:
                with store.transaction():  # one savepoint per entry: a failing entry leaves no trace
                    existing = store.find(importing.entry_name(entry))
                    if existing is not None and not _visible(ctx, existing):
                        errors.append(f"{entry['name']}: could not be stored (the name is taken)")
                        continue
                    plan = importing.plan_entry(existing, entry, options, ctx.now)
                    if plan.write is not None:
                        store.save(plan.write)
            except Exception as exc:  # one bad row must not cost the whole bundle
                if _stops_the_import(store.database_failure(exc)):
                    raise
                # The exception's own text can carry SQL or paths: the caller gets its kind, the log the rest.
                traceback.print_exc(file=sys.stderr)
                errors.append(f"{entry['name']}: could not be stored ({type(exc).__name__})")
                continue
            counts[plan.outcome] += 1
            counts["overwritten"] += int(plan.overwritten)
            queued += [(plan.write.name, target, kind) for target, kind in plan.relations if plan.write]
        report(len(entries), len(entries))
        people = access.scoped(Filters(), ctx.caller) if ctx.caller is not None else None
        present = store.existing_names([target for _, target, _ in queued], people)
        skipped_relations = []
        for source, target, kind in queued:
            if target not in present:
                skipped_relations.append(f"{source} -{kind}-> {target}")
            else:
                store.relate(source, target, kind)
    return Success({**counts, "errors": errors, "skipped_relations": skipped_relations})  # type: ignore[typeddict-item]


def _visible(ctx: CallContext, entity: Entity) -> bool:
    """Whether a member importing may change `entity` (another member's `personal` memory, or one outside its
    projects, is not its to overwrite or append to)."""
    provenance = entity.metadata.get("provenance")
    author = provenance.get("author") if isinstance(provenance, dict) else None
    return access.may_see(ctx.caller, entity.namespace, author, entity.tags)


class Restoring(Protocol):
    """The database, and whoever watches the import (the CLI's progress line)."""

    @property
    def store(self) -> ImportStore: ...
    def progress(self, done: int, total: int) -> None: ...


def import_file(uses: Restoring, request: ImportFileInput, /, *, ctx: CallContext) -> Result[ImportOutput, MemeshError]:
    """`memesh import <file>`: the bundle merged as the import tool merges it, keeping each entry's descriptive
    metadata (the owner's own file) and, with `trust`, marking what it imports trusted; fails as import_bundle
    does."""
    arguments = {key: value for key, value in request.items() if key != "trust"}
    return import_bundle(
        uses.store,
        cast(ImportInput, arguments),
        ctx=ctx,
        trust=request.get("trust", False),
        keep_metadata=True,
        on_progress=uses.progress,
    )


def _stops_the_import(error: MemeshError | None) -> bool:
    """A full disk or a read-only database is not one bad row: the whole import stops (and says which)."""
    return error is not None and error.data.get("store") in ("disk-full", "read-only")


def _unreported(_done: int, _total: int) -> None:
    """No one is watching the progress."""
