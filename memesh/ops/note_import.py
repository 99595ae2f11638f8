"""import --notes: one memory per note file in a directory, kept in step with the files across runs.

Read-only on the directory and bounded: symlinks and paths outside it are refused, .git and node_modules are not
entered, files over 256 KB are skipped, one run reads at most 500 files. Provenance records the path relative to the
directory, the file's SHA-256 and a digest of the directory — never an absolute path.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from contextlib import AbstractContextManager
from dataclasses import field, replace
from typing import Any, Protocol, cast

from returns.result import Failure, Result, Success

from memesh.context import CallContext
from memesh.core import note_files as nf
from memesh.core import remembering
from memesh.core.clean import clean_text
from memesh.core.keys import checked_key
from memesh.errors import MemeshError
from memesh.generated.cli.import_notes_input import ImportNotesInput
from memesh.generated.cli.import_notes_output import ImportNotesOutput
from memesh.model import ARCHIVED, Entity, EntityWrite
from memesh.records import dataclass

SOURCE = "note-file"


class NoteStore(Protocol):
    def transaction(self) -> AbstractContextManager[None]: ...
    def find(self, name: str) -> Entity | None: ...
    def save(self, write: EntityWrite) -> int: ...
    def ids_with_tag(self, tag: str) -> list[int]: ...
    def load(self, ids: list[int]) -> list[Entity]: ...
    def get_meta(self, key: str) -> str | None: ...
    def set_meta(self, key: str, value: str | None) -> None: ...


class NoteSource(Protocol):
    """The folder being imported (memesh.adapters.note_dir.NoteFolder on disk)."""

    @property
    def identity(self) -> str: ...
    def listing(self) -> tuple[Sequence[NoteEntry], Sequence[str]]: ...
    def inside(self, rel: str) -> bool: ...
    def read(self, rel: str) -> bytes: ...


class NoteEntry(Protocol):
    @property
    def rel(self) -> str: ...
    @property
    def size(self) -> int: ...
    @property
    def mtime_ms(self) -> float: ...
    @property
    def ino(self) -> int: ...


@dataclass
class _File:
    rel: str
    size: int
    mtime_ms: float
    ino: int
    data: bytes | None = None
    note: nf.NoteFile | None = None

    @property
    def key(self) -> str:
        """The path as recorded and reported (`rel` is what is read): cleaned like any stored text, since a file
        name can hold a credential, and compared in that form with what earlier runs recorded."""
        return clean_text(self.rel)

    @property
    def fingerprint(self) -> dict[str, Any]:
        return {"mtime": self.mtime_ms, "size": self.size}


@dataclass
class _Run:
    result: dict[str, Any] = field(
        default_factory=lambda: {
            "created": 0,
            "replaced": 0,
            "unchanged": 0,
            "repathed": 0,
            "restored": 0,
            "markedMissing": [],
            "skipped": [],
            "refusedNow": 0,
            "more": 0,
        }
    )
    skips: dict[str, dict[str, Any]] = field(default_factory=dict)
    previous_skips: dict[str, dict[str, Any]] = field(default_factory=dict)
    touched: set[str] = field(default_factory=set)

    def skip(self, file: _File | None, rel: str, reason: str, *, fingerprint: bool = True) -> None:
        """Report `rel` as skipped. With `fingerprint` (a refusal for the file's own content or place) the next run
        repeats it without reading the file until its size or mtime changes; without, only the reason is kept, so
        the same refusal is not counted as new again but the file is judged afresh on every run."""
        rel = clean_text(rel)
        self.result["skipped"].append({"path": rel, "reason": reason})
        if self.previous_skips.get(rel, {}).get("reason") != reason:
            self.result["refusedNow"] += 1
        self.skips[rel] = {**(file.fingerprint if file and fingerprint else {}), "reason": reason}


def _provenance(entity: Entity) -> dict[str, Any]:
    provenance = entity.metadata.get("provenance")
    return provenance if isinstance(provenance, dict) else {}


def _is_note(entity: Entity) -> bool:
    """Whether a memory came from a note file. A manual remember into it rewrites provenance.source but keeps the
    note keys (and the tag), so those are what say so — the memory stays its file's to replace."""
    provenance = _provenance(entity)
    return "note_dir_id" in provenance or "note_path" in provenance or nf.NOTE_TAG in entity.tags


class NoteFolders(Protocol):
    """The database, and the note folders of this machine (memesh.app.resources)."""

    @property
    def store(self) -> NoteStore: ...
    def note_folder(self, directory: str) -> Result[NoteSource, MemeshError]: ...


EMPTY_PROJECT = "--project is empty: give the project's name, or leave the flag out for this one."


def import_note_folder(
    uses: NoteFolders, request: ImportNotesInput, /, *, ctx: CallContext
) -> Result[ImportNotesOutput, MemeshError]:
    """`memesh import --notes <dir>`: the folder's note files ingested under the project given (default: the
    current one); Failure(operation.failed) for a blank project or a folder that cannot be read, and as
    import_notes fails."""
    project = request.get("project")
    if project is not None and not project.strip():
        return Failure(MemeshError.failed(EMPTY_PROJECT))
    match uses.note_folder(request["dir"]):
        case Failure() as unreadable:
            return unreadable
        case Success(folder):
            pass
    result = import_notes(uses.store, folder, project=project or ctx.project(), ctx=ctx)
    return cast(Result[ImportNotesOutput, MemeshError], result)


# A symlinked folder inside the notes folder is not followed (the spec refuses symlinks: one could lead out of the
# folder, or round in a loop); it is reported. To import what it holds, name its target: `import --notes <target>`.
LINKED_FOLDER = "symlinked folder refused (not followed; import its target folder itself)"


def import_notes(
    store: NoteStore,
    folder: NoteSource,
    *,
    project: str | None,
    ctx: CallContext,
    max_reads: int | None = None,
) -> Result[dict[str, Any], MemeshError]:
    """Ingest the note files under `folder` (listed once, read within it), reading at most `max_reads` files (the
    Stop hook reads 100); never fails on a file, only reports it; Failure(validation.bad-body) for a project that is
    blank or holds a credential."""
    if project is not None:
        match checked_key("project", project):
            case Failure(problem):
                return Failure(MemeshError.bad_body(problem))
            case Success(project):
                pass
    entries, symlinks = folder.listing()
    files = [_File(e.rel, e.size, e.mtime_ms, e.ino) for e in entries]
    digest = nf.dir_id(folder.identity)
    run = _Run()
    with store.transaction():
        key = f"note_ingest_skips:{digest}"
        raw_skips = store.get_meta(key)
        run.previous_skips = json.loads(raw_skips) if raw_skips else {}
        ours = [e for e in store.load(store.ids_with_tag(nf.NOTE_TAG)) if _provenance(e).get("note_dir_id") == digest]
        by_path = {_provenance(e).get("note_path"): e for e in ours if nf.MISSING_TAG not in e.tags}
        for rel in symlinks:
            run.skip(None, rel, LINKED_FOLDER if rel.endswith("/") else "symlink refused")
        claims = _read(files, folder, by_path, run, nf.MAX_FILES_PER_RUN if max_reads is None else max_reads)
        present = {f.key for f in files}
        for name, claimants in claims.items():
            _settle(store, name, claimants, digest, present, project, ctx, run)
        _sweep(store, ours, present, {f.key: f for f in files}, run)
        store.set_meta(key, json.dumps(run.skips) if run.skips else None)
    linked_files = [rel for rel in symlinks if not rel.endswith("/")]
    return Success({"dirId": digest, "discovered": len(files) + len(linked_files), **run.result})


def _read(
    files: list[_File], folder: NoteSource, by_path: dict[Any, Entity], run: _Run, max_reads: int
) -> dict[str, list[_File]]:
    claims: dict[str, list[_File]] = {}
    read = 0
    for file in files:
        known = by_path.get(file.key)
        if known is not None:
            recorded = _provenance(known)
            if (recorded.get("note_mtime_ms"), recorded.get("note_size"), recorded.get("note_ino")) == (
                file.mtime_ms,
                file.size,
                file.ino,
            ):
                run.touched.add(known.name)
                run.result["unchanged"] += 1
                continue
        previous = run.previous_skips.get(file.key)
        if previous and previous.get("mtime") == file.mtime_ms and previous.get("size") == file.size:
            run.skip(file, file.rel, str(previous.get("reason", "skipped")))
            continue
        if read >= max_reads:
            run.result["more"] += 1
            continue
        if file.size > nf.MAX_FILE_BYTES:
            run.skip(file, file.rel, "larger than 256 KB")
            continue
        if not folder.inside(file.rel):
            run.skip(file, file.rel, "resolves outside the directory")
            continue
        try:
            file.data = folder.read(file.rel)
        except OSError as exc:
            run.skip(file, file.rel, f"unreadable: {exc.strerror}", fingerprint=False)
            continue
        read += 1
        note = nf.read_note(file.data)
        if isinstance(note, str):
            run.skip(file, file.rel, note)
            continue
        file.note = note
        claims.setdefault(note.name, []).append(file)
    return claims


def _settle(  # noqa: PLR0917 - one name's claim, decided with everything the run knows
    store: NoteStore,
    name: str,
    claimants: list[_File],
    digest: str,
    present: set[str],
    project: str | None,
    ctx: CallContext,
    run: _Run,
) -> None:
    existing = store.find(name)
    refusal = None
    if existing is not None and not _is_note(existing):
        refusal = f'name "{name}" belongs to a memory that did not come from a note file'
    elif existing is not None and _provenance(existing).get("note_dir_id") != digest:
        refusal = f'name "{name}" was already ingested from another note directory'
    elif existing is not None and existing.status == ARCHIVED:
        refusal = f'memory "{name}" was archived with forget; not re-ingested'
    # Every refusal below is about who owns the name, not about the file: none is cached, so a claimant takes the
    # name over on the first run after the owner releases it, whether or not the claimant itself changed.
    if refusal is not None:
        for file in claimants:
            run.skip(file, file.rel, refusal, fingerprint=False)
        return
    recorded = _provenance(existing) if existing else {}
    missing = existing is not None and nf.MISSING_TAG in existing.tags
    recorded_path = recorded.get("note_path")
    if existing is not None and not missing and recorded_path in present and name in run.touched:
        # The owner is unchanged (so not read) and still declares the name: the same duplicate as when it was read,
        # reported in the same words so a repeat is not counted as newly refused.
        for file in claimants:
            reason = f'name "{name}" already used by {recorded_path} in this directory'
            run.skip(file, file.rel, reason, fingerprint=False)
        return
    owner = next((f for f in claimants if f.key == recorded_path and not missing), None)
    owner = owner or next(
        (f for f in claimants if nf.content_hash(f.data or b"") == recorded.get("content_hash")), None
    )
    owner = owner or claimants[0]
    for file in claimants:
        if file is not owner:
            run.skip(file, file.rel, f'name "{name}" already used by {owner.rel} in this directory', fingerprint=False)
    run.touched.add(name)
    _write(store, existing, owner, digest, project, ctx, run)


def _write(  # noqa: PLR0917
    store: NoteStore,
    existing: Entity | None,
    file: _File,
    digest: str,
    project: str | None,
    ctx: CallContext,
    run: _Run,
) -> None:
    assert file.note is not None and file.data is not None
    provenance = {
        "source": SOURCE,
        "note_path": file.key,
        "content_hash": nf.content_hash(file.data),
        "note_dir_id": digest,
        "note_mtime_ms": file.mtime_ms,
        "note_size": file.size,
        "note_ino": file.ino,
    }
    if existing is not None and _provenance(existing).get("content_hash") == provenance["content_hash"]:
        missing = nf.MISSING_TAG in existing.tags
        moved = _provenance(existing).get("note_path") != file.key
        metadata = {**existing.metadata, "provenance": {**_provenance(existing), **provenance}}
        tags = tuple(tag for tag in existing.tags if tag != nf.MISSING_TAG)
        store.save(_same(existing, metadata=metadata, tags=tags))
        key = "restored" if missing else "repathed" if moved else "unchanged"
        run.result[key] += 1
        return
    request = remembering.Resolved(
        name=file.note.name,
        type=file.note.type,
        title=file.note.title,
        observations=file.note.observations,
        tags=nf.note_tags(existing.tags if existing else [], project),
        relations=[],
        namespace=None,
        replace=True,
    )
    # The surface that ran the import is the host (cli, or the host whose Stop hook ran it), as for remember;
    # provenance.source says it came from a note file.
    planned = remembering.plan(
        existing, request, set(), now=ctx.now, source_host=ctx.source_host, author=ctx.author()
    ).unwrap()
    metadata = dict(planned.write.metadata)
    metadata["trust"] = "untrusted"
    metadata["provenance"] = {**metadata.get("provenance", {}), **provenance}
    store.save(replace(planned.write, metadata=metadata))
    run.result["replaced" if existing is not None else "created"] += 1


def _same(entity: Entity, *, metadata: dict[str, Any], tags: tuple[str, ...]) -> EntityWrite:
    return EntityWrite(
        entity_id=entity.id,
        name=entity.name,
        type=entity.type,
        title=entity.title,
        namespace=entity.namespace,
        status=entity.status,
        metadata=metadata,
        observations=tuple(entity.observations),
        tags=tags,
    )


def _sweep(store: NoteStore, ours: list[Entity], present: set[str], files: dict[str, _File], run: _Run) -> None:
    """A memory whose file vanished (or stopped declaring its name) is tagged missing, never deleted."""
    for entity in ours:
        if entity.name in run.touched or nf.MISSING_TAG in entity.tags:
            continue
        rel = _provenance(entity).get("note_path")
        file = files.get(rel) if isinstance(rel, str) else None
        gone = rel not in present
        renamed = file is not None and file.note is not None and file.note.name != entity.name
        stopped = file is not None and file.data is not None and file.note is None
        if gone or renamed or stopped:
            store.save(_same(entity, metadata=entity.metadata, tags=(*entity.tags, nf.MISSING_TAG)))
            run.result["markedMissing"].append(entity.name)
