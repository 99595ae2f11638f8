"""The decisions behind remember, as pure functions: resolve the request, then plan the write against what exists.

`resolve` turns either form (structured, or `note`) into one cleaned request and refuses the shapes the schema
cannot express (a note with a title, a replace that would empty the memory, …) with the field at fault named.
`plan` decides what the memory looks like after the call — observations appended or replaced, tags, title, type,
namespace, trust and provenance, the replaced version kept in history — and what to report.
"""

from __future__ import annotations

from dataclasses import field
from datetime import datetime
from typing import TYPE_CHECKING, Any

from returns.result import Failure, Result, Success

from memesh.core import history
from memesh.core.clean import clean_all, clean_key, clean_label, clean_name, clean_text
from memesh.core.importance import signal_score
from memesh.core.keys import key_problem
from memesh.core.notes import NOTE_TYPE, DerivedNote, derive_note
from memesh.errors import ErrorCode, MemeshError
from memesh.model import (
    ACTIVE,
    ARCHIVED,
    DEFAULT_NAMESPACE,
    LESSON_TYPES,
    Entity,
    EntityWrite,
    canonical_type,
    iso_time,
    sqlite_time,
)
from memesh.records import dataclass

if TYPE_CHECKING:  # annotations only: a TypedDict module costs ~4 M instructions to import
    from memesh.generated.tools.remember_input import RememberInput

MAX_OBSERVATIONS = 100
CONFIDENCE_STEP = 0.05


@dataclass(frozen=True)
class Resolved:
    """One remember request in structured form, cleaned."""

    name: str
    type: str | None  # canonical; None only on a replace, which keeps the stored type
    title: str | None  # None keeps the title a memory has
    observations: list[str]
    tags: list[str] | None
    relations: list[tuple[str, str]]
    namespace: str | None
    replace: bool
    derived: DerivedNote | None = None
    # A title the caller derived from free text rather than stated: it names a new memory, but an existing one keeps
    # its own (only a stated title replaces a stored one).
    title_derived: bool = False


@dataclass(frozen=True)
class Plan:
    """The write to make, the relations to create, and the parts of the answer the store cannot tell."""

    write: EntityWrite
    relations: list[tuple[str, str]]
    relation_errors: list[str]
    supersede: list[str]
    report: dict[str, Any] = field(default_factory=dict)


def _issue(path: str, message: str) -> str:
    return f"{path}: {message}"


def _cannot_combine(key: str) -> str:
    return _issue(
        key,
        f"{key} cannot be combined with note — note derives it; to correct what was derived, call again with name, "
        "replace: true and a structured title and observations — the response's `derived` shows what was derived, "
        "so the observations to keep can be copied from it (pass `type` only to also change the memory's type)",
    )


def resolve(request: RememberInput) -> Result[Resolved, MemeshError]:
    """The request in structured form, or Failure(validation.bad-body) naming every field at fault."""
    issues: list[str] = []
    name = request.get("name")
    if name is not None:
        name = clean_key(name)
        if (problem := key_problem(name)) is not None:
            issues.append(_issue("name", problem))
    title = request.get("title")
    # Judged blank after cleaning: a title or observation of control characters alone is as empty as whitespace.
    title = (clean_name(clean_text(title)) or None) if title is not None else None
    observations = request.get("observations")
    for index, text in enumerate(observations or []):
        if not clean_text(text).strip():
            issues.append(_issue(f"observations.{index}", "an observation must not be empty or whitespace-only"))
    entity_type = request.get("type")
    replace = request.get("replace", False)
    note = request.get("note")
    derived: DerivedNote | None = None
    if note is None:
        if "name" not in request:
            issues.append(_issue("name", "name is required (or pass `note` to have it derived)"))
        if entity_type is None and not (replace and "name" in request):
            issues.append(
                _issue(
                    "type",
                    'type is required (or pass `note`, which defaults it to "note", or `replace: true` with a '
                    "`name` to keep the type that memory already has)",
                )
            )
        if replace and not observations:
            issues.append(
                _issue(
                    "observations",
                    "replace rewrites the memory's observations, so it needs `observations` (or `note`) — a replace "
                    "without them would empty the memory. To change only the title or tags, send the observations "
                    "the memory already has together with the new title or tags",
                )
            )
    else:
        issues += [_cannot_combine(key) for key in ("title", "observations") if key in request]
        if replace and "name" not in request:
            issues.append(
                _issue(
                    "name",
                    "replace with note needs an explicit name — a derived name changes with the text, so there is "
                    "nothing to replace",
                )
            )
        derived = derive_note(note)
        if derived is None:
            issues.append(_issue("note", "note must contain some text"))
        elif len(derived.observations) > MAX_OBSERVATIONS:
            count = len(derived.observations)
            issues.append(_issue("note", f"note yields {count} observations; at most 100 are stored per memory"))
    if issues:
        return Failure(MemeshError(ErrorCode.BAD_BODY, "; ".join(issues)))
    if derived is not None:
        return Success(
            Resolved(
                name=name or derived.name,
                type=canonical_type(clean_label(entity_type)) if entity_type is not None else None,
                title=derived.title,
                observations=derived.observations,
                tags=clean_tags(request.get("tags")),
                relations=clean_relations(request.get("relations", [])),
                namespace=request.get("namespace"),
                replace=replace,
                derived=derived,
            )
        )
    cleaned = clean_all([*([title] if title is not None else []), *(observations or [])])
    return Success(
        Resolved(
            name=name or "",
            type=canonical_type(clean_label(entity_type)) if entity_type is not None else None,
            title=cleaned[0] if title is not None else None,
            observations=cleaned[1:] if title is not None else cleaned,
            tags=clean_tags(request.get("tags")),
            relations=clean_relations(request.get("relations", [])),
            namespace=request.get("namespace"),
            replace=replace,
        )
    )


def clean_tags(tags: list[str] | None) -> list[str] | None:
    """Tags as stored: controls stripped and credentials redacted, as every other stored text, on one line, NFC."""
    return None if tags is None else [clean_label(tag) for tag in tags]


def clean_relations(relations: list[Any]) -> list[tuple[str, str]]:
    """(target, type) pairs as compared and stored: the target a key, the type a label."""
    return [(clean_key(r["to"]), clean_label(r["type"])) for r in relations]


def observation_hash(text: str) -> str:
    """The key observation-level forget records (SHA-256 of the exact text)."""
    import hashlib  # here: hashlib loads OpenSSL (~10 M instructions), and only a forget or a capture needs it

    return hashlib.sha256(text.encode()).hexdigest()


def _dedupe(stored: list[str], incoming: list[str]) -> list[str]:
    seen = set(stored)
    added: list[str] = []
    for text in incoming:
        if text not in seen:
            seen.add(text)
            added.append(text)
    return added


def _metadata(
    current: dict[str, Any],
    *,
    first_insert: bool,
    source_host: str,
    now: datetime,
    entity: dict[str, Any],
    author: str | None = None,
    remote: bool = False,
) -> dict[str, Any]:
    provenance = dict(current.get("provenance") or {}) if isinstance(current.get("provenance"), dict) else {}
    # A write through a remote listener (a member's or the owner's token) is never stamped local.
    provenance.update({"source": "remote" if remote else "local", "reviewed_at": iso_time(now)})
    if first_insert and source_host:  # a hook that cannot tell which host ran it stamps none
        provenance["source_host"] = source_host
    if first_insert and author:  # like source_host: who created it, kept when others append
        provenance["author"] = author
    return {**current, **entity, "trust": "trusted", "provenance": provenance}


def plan(
    existing: Entity | None,
    request: Resolved,
    present: set[str],
    *,
    now: datetime,
    source_host: str,
    author: str | None = None,
    remote: bool = False,
) -> Result[Plan, MemeshError]:
    """What the memory becomes, given what is stored (`existing`) and which relation targets exist (`present`)."""
    name = request.name
    if request.replace and existing is not None and existing.status == ARCHIVED:
        return Failure(
            MemeshError.failed(
                f'"{name}" was archived with forget; `replace` will not overwrite it. '
                "Remember it again without `replace` to bring it back, then replace it."
            )
        )
    entity_type = request.type or (existing.type if existing else NOTE_TYPE if request.derived else None)
    if entity_type is None:
        return Failure(
            MemeshError.failed(
                f'`replace` on "{name}": there is no memory named "{name}" to inherit a type from, so this call '
                "would create one with no type — pass `type` to create it."
            )
        )

    metadata_extra: dict[str, Any] = {}
    report: dict[str, Any] = {}
    title = request.title
    incoming = list(request.observations)
    tags_given = request.tags
    if existing is None:
        stored_type = entity_type
        keep = entity_type in LESSON_TYPES
        observations = incoming if keep else _dedupe([], incoming)
        tags = list(dict.fromkeys(tags_given or []))
        namespace = request.namespace or DEFAULT_NAMESPACE
        metadata_extra["signal_score"] = signal_score(stored_type, observations, tags)
        current: dict[str, Any] = {}
        confidence = None
    else:
        current = dict(existing.metadata)
        stored_type = existing.type
        if request.replace:
            version = history.version(iso_time(now), existing.title, existing.observations, sorted(existing.tags))
            past = current.get("replaced_history")
            metadata_extra["replaced_history"] = history.bound([*(past if isinstance(past, list) else []), version])
            if request.type is not None and request.type != existing.type:
                stored_type = request.type
            observations = incoming if stored_type in LESSON_TYPES else _dedupe([], incoming)
            tags = list(dict.fromkeys(tags_given)) if tags_given is not None else list(existing.tags)
        else:
            if request.derived is not None or request.title_derived:
                title = None  # a note, or a derived title, appended to a memory keeps the title it has
                incoming = [text for text in incoming if text not in set(existing.observations)]
            keep = existing.type in LESSON_TYPES
            added = incoming if keep else _dedupe(existing.observations, incoming)
            observations = [*existing.observations, *added]
            tags = list(dict.fromkeys([*existing.tags, *(tags_given or [])]))
        if title is None:
            title = existing.title
        namespace = existing.namespace
        if request.namespace is not None and request.namespace != existing.namespace:
            namespace = request.namespace
            metadata_extra["previous_namespace"] = existing.namespace
            metadata_extra["namespace_moved_at"] = iso_time(now)
            report["movedFromNamespace"] = existing.namespace
        reactivated = existing.status == ARCHIVED
        adds_new_text = any(text not in set(existing.observations) for text in incoming)
        trusted = current.get("trust", "trusted") == "trusted"
        confidence = (
            min(existing.confidence + CONFIDENCE_STEP, 1.0)
            if adds_new_text and trusted and not reactivated and not request.replace
            else None
        )
    forgotten = current.get("forgotten_observation_hashes")
    if isinstance(forgotten, list) and forgotten:
        # Stating a forgotten observation again, explicitly, lifts its exclusion.
        written = {observation_hash(text) for text in incoming}
        metadata_extra["forgotten_observation_hashes"] = [h for h in forgotten if h not in written]

    relations: list[tuple[str, str]] = []
    errors: list[str] = []
    for target, kind in dict.fromkeys(request.relations):  # a relation stated twice is one relation
        if target in present or target == name:
            relations.append((target, kind))
        else:
            errors.append(f'Relation to "{target}" failed: Entity not found: {target}')

    write = EntityWrite(
        entity_id=existing.id if existing else None,
        name=name,
        type=stored_type,
        title=title,
        namespace=namespace,
        status=ACTIVE,
        metadata=_metadata(
            current,
            first_insert=existing is None,
            source_host=source_host,
            now=now,
            entity=metadata_extra,
            author=author,
            remote=remote,
        ),
        observations=tuple(observations),
        tags=tuple(tags),
        created_at=sqlite_time(now) if existing is None else None,
        confidence=confidence,
        author=author,
    )
    report["observations"] = len(incoming)
    report["tags"] = len(tags) if request.replace else len(tags_given or [])
    if request.replace:
        report["replaced"] = existing is not None
    supersede = [target for target, kind in relations if kind == "supersedes"]
    return Success(Plan(write=write, relations=relations, relation_errors=errors, supersede=supersede, report=report))
