"""What the hooks write on their own: the session handoff, session snapshots, commits; and the citation credit.

Each write is one transaction through the remember rules (cleaning, trust, provenance stamped with the host that
ran the hook). Each returns an `Outcome`, the record the hook appends to hook-outcomes.jsonl.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from contextlib import AbstractContextManager
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Literal, Protocol

from returns.result import Failure, Result, Success

from memesh.context import CallContext
from memesh.core import remembering
from memesh.errors import MemeshError
from memesh.model import ARCHIVED, Entity, EntityWrite
from memesh.records import dataclass

if TYPE_CHECKING:
    from memesh.core import snapshots
    from memesh.core.commits import CommitMemory
    from memesh.ops.note_import import NoteSource

OutcomeKind = Literal["wrote", "notified", "skipped", "error"]


@dataclass(frozen=True)
class Outcome:
    outcome: OutcomeKind
    reason: str | None = None
    entity: str | None = None


class CaptureStore(Protocol):
    def transaction(self) -> AbstractContextManager[None]: ...
    def find(self, name: str) -> Entity | None: ...
    def save(self, write: EntityWrite) -> int: ...
    def existing_names(self, names: Iterable[str]) -> set[str]: ...
    def load(self, ids: Sequence[int]) -> list[Entity]: ...
    def create_relation(
        self, from_name: str, to_name: str, relation_type: str, *, author: str | None = None
    ) -> bool: ...


def _write(
    store: CaptureStore,
    resolved: remembering.Resolved,
    existing: Entity | None,
    ctx: CallContext,
    metadata: dict[str, Any] | None = None,
) -> Result[int, MemeshError]:
    match remembering.plan(existing, resolved, set(), now=ctx.now, source_host=ctx.source_host):
        case Failure() as refused:
            return refused
        case Success(plan):
            pass
    write = plan.write
    if metadata:
        write = replace(write, metadata={**write.metadata, **metadata})
    return Success(store.save(write))


def capture_handoff(
    store: CaptureStore, project: str, reply: str | None, *, auto_capture: bool, ctx: CallContext
) -> Outcome:
    """Replace the project's handoff with the cleaned reply; a skipped capture leaves the previous one untouched."""
    from memesh.core import handoff  # each hook imports the rules of its own capture only (ADR 0002)

    decision = handoff.decide(reply, auto_capture=auto_capture)
    if decision.text is None:
        return Outcome("skipped", decision.reason)
    name = handoff.entity_name(project)
    with store.transaction():
        existing = store.find(name)
        if existing is not None and existing.status == ARCHIVED:
            return Outcome("skipped", "the handoff memory is archived", entity=name)
        if existing is not None and existing.observations == [decision.text]:
            return Outcome("skipped", "the reply is already the handoff")
        resolved = remembering.Resolved(
            name=name,
            type=handoff.HANDOFF_TYPE,
            title=f"Session handoff for {project}"[:200],
            observations=[decision.text],
            tags=[f"project:{project}"],
            relations=[],
            namespace=None,
            replace=existing is not None,
        )
        match _write(store, resolved, existing, ctx):
            case Failure(error):
                return Outcome("error", f"write refused: {error.code}")
    return Outcome("wrote", entity=name)


def _forgotten(entity: Entity | None) -> set[str]:
    hashes = entity.metadata.get("forgotten_observation_hashes") if entity else None
    return {h for h in hashes if isinstance(h, str)} if isinstance(hashes, list) else set()


def capture_snapshots(
    store: CaptureStore,
    project: str,
    session_id: str,
    derived: Sequence[snapshots.Snapshot],
    ctx: CallContext,
) -> Outcome:
    """Write the session's snapshots: new observations only, never one a person removed with forget."""
    from memesh.core.snapshots import SNAPSHOT_TYPE

    if not derived:
        return Outcome("skipped", "fewer than 3 tool calls")
    written: list[str] = []
    with store.transaction():
        for snapshot in derived:
            existing = store.find(snapshot.name)
            excluded = _forgotten(existing)
            wanted = [o for o in snapshot.observations if remembering.observation_hash(o) not in excluded]
            stored = existing.observations if existing is not None else []
            if snapshot.replace:
                if not wanted or wanted == stored:
                    continue
                incoming = wanted
            else:
                incoming = [o for o in wanted if o not in set(stored)]
                if not incoming:
                    continue
            resolved = remembering.Resolved(
                name=snapshot.name,
                type=SNAPSHOT_TYPE,
                title=None,
                observations=incoming,
                tags=[f"project:{project}", f"session:{session_id}"],
                relations=[],
                namespace=None,
                replace=snapshot.replace and existing is not None,
            )
            if isinstance(_write(store, resolved, existing, ctx, {"session_id": session_id}), Success):
                written.append(snapshot.name)
    if not written:
        return Outcome("skipped", "nothing new in the session snapshots")
    return Outcome("wrote", entity=written[0])


COMMIT_STORED = "the commit is already stored"


def _holds(existing: Entity, observations: Sequence[str], tags: Sequence[str]) -> bool:
    """Whether writing these lines and tags to `existing` would add nothing: a no-op run records a skip."""
    return set(observations) <= set(existing.observations) and set(tags) <= set(existing.tags)


def capture_commit(
    store: CaptureStore,
    memory: CommitMemory,
    *,
    session_id: str | None,
    commit: dict[str, str],
    ctx: CallContext,
) -> Outcome:
    """Remember one commit (a commit seen twice adds nothing), with the session it was made in, and an `implements`
    relation to each stored memory its message names with `[mem:<name>]` (a name that is not stored is passed over)."""
    from memesh.core.commits import COMMIT_TYPE, IMPLEMENTS

    with store.transaction():
        existing = store.find(memory.name)
        if existing is not None and _holds(existing, memory.observations, memory.tags):
            return Outcome("skipped", COMMIT_STORED, entity=memory.name)
        resolved = remembering.Resolved(
            name=memory.name,
            type=COMMIT_TYPE,
            title=memory.title,
            observations=memory.observations,
            tags=memory.tags,
            relations=[],
            namespace=None,
            replace=False,
        )
        extra: dict[str, Any] = {"commit": commit}
        if session_id:
            extra["session_id"] = session_id
        match _write(store, resolved, existing, ctx, extra):
            case Failure(error):
                return Outcome("error", f"write refused: {error.code}")
        for target in _implemented(store, memory):
            store.create_relation(memory.name, target, IMPLEMENTS, author=ctx.author())
    return Outcome("wrote", entity=memory.name)


def _implemented(store: CaptureStore, memory: CommitMemory) -> list[str]:
    """The stored memories a commit's `[mem:…]` references name: a number is the handle the briefing index shows
    (the memory's id), anything else a memory's name; ones not stored, and the commit itself, are passed over."""
    ids = [int(ref) for ref in memory.implements if ref.isdigit() and len(ref) < 19]
    by_id = {str(entity.id): entity.name for entity in store.load(ids)} if ids else {}
    named = [name for name in memory.implements if name not in by_id]
    present = store.existing_names(named) if named else set()
    found = [by_id.get(ref) or (ref if ref in present else None) for ref in memory.implements]
    return [name for name in dict.fromkeys(found) if name is not None and name != memory.name]


class NoteFolderStore(CaptureStore, Protocol):
    def get_meta(self, key: str) -> str | None: ...
    def set_meta(self, key: str, value: str | None) -> None: ...
    def ids_with_tag(self, tag: str) -> list[int]: ...


def ingest_note_folder(
    store: NoteFolderStore, folder: NoteSource, signature: str, project: str, *, max_reads: int, ctx: CallContext
) -> Outcome:
    """The note files beside a session transcript, read again only when the folder's newest mtime changed."""
    from memesh.core import note_files
    from memesh.ops.note_import import import_notes

    key = f"note_ingest_mtime:{note_files.dir_id(folder.identity)}"
    if store.get_meta(key) == signature:
        return Outcome("skipped", "note files unchanged since the last run")
    match import_notes(store, folder, project=project, ctx=ctx, max_reads=max_reads):
        case Success(result):
            if not result["more"]:  # files left for the next run: read again even if nothing changes
                store.set_meta(key, signature)
            written = result["created"] + result["replaced"]
            if written:
                return Outcome("wrote", f"{written} note files ingested")
            return Outcome("skipped", "no note file changed")
    return Outcome("error", "note folder unreadable")
