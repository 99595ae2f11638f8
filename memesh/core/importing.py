"""The decisions behind import, as pure functions: what one bundle entry does to the graph, and what of its
metadata may be believed.

A bundle is untrusted input. Only purely descriptive metadata keys are taken from it (and only by the CLI, which
reads the file itself); every key that changes what MeMesh does is refused or rebuilt, except four that are
validated and accepted only onto a memory the import creates. Nothing of the bundle's envelope (its `version`,
`exported_at`) is stored: the spec names no use for it, and a value copied into every imported row let one small
request write the same text thousands of times.
"""

from __future__ import annotations

import re
from dataclasses import field
from datetime import datetime
from typing import Any, Literal

from memesh.core import history
from memesh.core.authors import shown_author
from memesh.core.clean import clean_all, clean_key, clean_label, clean_name, clean_text
from memesh.core.importance import signal_score
from memesh.core.keys import key_problem
from memesh.core.notes import TITLE_MAX, shorten
from memesh.core.remembering import clean_relations, observation_hash
from memesh.core.sizecap import json_bytes
from memesh.core.storable import map_strings
from memesh.model import (
    ACTIVE,
    ARCHIVED,
    DEFAULT_NAMESPACE,
    LESSON_TYPES,
    NAMESPACES,
    Entity,
    EntityWrite,
    canonical_type,
    iso_time,
    sqlite_time,
)
from memesh.records import dataclass
from memesh.schema import files as schemas
from memesh.schema import validation

Strategy = Literal["skip", "overwrite", "append"]
Outcome = Literal["imported", "skipped", "appended", "kept_archived"]

# Keys that only describe a memory (display or provenance); nothing reads them back to change behaviour.
IMPORTABLE_METADATA_KEYS = frozenset(
    {
        "title_source",
        "source_kind",
        "source",
        "cluster_key",
        "dreamed_at",
        "kind",
        "project",
        "previous_namespace",
        "namespace_moved_at",
        "split_from",
        "retired_recall",
        "priority",
        "success_criteria",
        "verification_scenario",
        "implementation_state",
        "outcome_state",
        "accepted_at",
        "source_ids",
    }
)
FORGOTTEN_MAX = 1000
HISTORY_MAX_ENTRIES = 50
HISTORY_IMPORT_MAX_BYTES = 256 * 1024
_HEX64 = re.compile(r"^[a-f0-9]{64}$")
_CREATED_AT = re.compile(r"^(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2}):(\d{2})$")
_HISTORY_KEYS = frozenset({"replaced_at", "title", "observations", "tags", "truncated"})


@dataclass(frozen=True)
class Options:
    strategy: Strategy
    namespace: str | None
    restore_archived: bool
    trust: bool
    keep_metadata: bool
    # Issue 32: who imports (the local author, or the member on a remote listener), and whether an entry's own
    # `metadata.provenance.author` is kept (a local import) or the importer is recorded instead.
    author: str | None = None
    keep_author: bool = True


@dataclass(frozen=True)
class EntryPlan:
    """One bundle entry's outcome, the write to make (if any), and the relations it asks for."""

    outcome: Outcome
    overwritten: bool = False
    write: EntityWrite | None = None
    relations: list[tuple[str, str]] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)


def duplicate_name(entries: list[Any]) -> str | None:
    """The first name the bundle uses twice, or None. Names are compared as they would be stored (`entry_name`):
    two spellings that clean to one name would otherwise merge into one memory."""
    seen: set[str] = set()
    for entry in entries:
        raw = entry.get("name") if isinstance(entry, dict) else None
        name = clean_key(raw) if isinstance(raw, str) else ""
        if name:
            if name in seen:
                return name
            seen.add(name)
    return None


def entry_problem(index: int, entry: Any) -> str | None:
    """Why bundle entry `index` cannot be imported, or None. Checked against the bundle's own schema file."""
    schema = schemas.load("tools/export.output")
    entity_schema = {**schema["$defs"]["entity"], "$defs": schema["$defs"]}
    problems = validation.issues(entity_schema, entry)
    if problems:
        return f"entities[{index}]: " + "; ".join(problems)
    problem = key_problem(clean_key(entry["name"]))
    return None if problem is None else f"entities[{index}]: name: {problem}"


def parse_created_at(value: Any) -> str | None:
    """A bundle's created_at as stored (`YYYY-MM-DD HH:MM:SS`), or None when it is not a real date and time."""
    if not isinstance(value, str):
        return None
    match = _CREATED_AT.match(value)
    if not match:
        return None
    try:
        year, month, day, hour, minute, second = (int(part) for part in match.groups())
        moment = datetime(year, month, day, hour, minute, second)  # the bundle's time is UTC, as stored
    except ValueError:
        return None
    return moment.strftime("%Y-%m-%d %H:%M:%S")


def _valid_forgotten(value: Any) -> list[str] | None:
    if not isinstance(value, list) or not value:
        return None
    unique = list(dict.fromkeys(value))
    if len(unique) > FORGOTTEN_MAX or not all(isinstance(h, str) and _HEX64.match(h) for h in unique):
        return None
    return unique


def _valid_score(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value) if 0 <= value <= 1 else None  # NaN fails both comparisons


def _valid_history_entry(entry: Any) -> bool:
    if not isinstance(entry, dict) or not set(entry) <= _HISTORY_KEYS:
        return False
    return (
        isinstance(entry.get("replaced_at"), str)
        and (entry.get("title") is None or isinstance(entry.get("title"), str))
        and isinstance(entry.get("observations"), list)
        and all(isinstance(o, str) for o in entry["observations"])
        and isinstance(entry.get("tags"), list)
        and all(isinstance(t, str) for t in entry["tags"])
        and isinstance(entry.get("truncated", False), bool)
    )


def _valid_history(value: Any) -> list[dict[str, Any]] | None:
    if not isinstance(value, list) or not value or len(value) > HISTORY_MAX_ENTRIES:
        return None
    if not all(_valid_history_entry(entry) for entry in value) or json_bytes(value) > HISTORY_IMPORT_MAX_BYTES:
        return None
    # replaced_at too, and every key; a version's observations together, as a write's are (a key across them)
    cleaned: list[dict[str, Any]] = [
        {clean_text(k): clean_all(v) if k == "observations" else map_strings(v, clean_text) for k, v in entry.items()}
        for entry in value
    ]
    return cleaned if json_bytes(cleaned) <= HISTORY_IMPORT_MAX_BYTES else None


def bundle_metadata(raw: Any, *, fresh: bool) -> dict[str, Any]:
    """What of a bundle entry's metadata is kept: the descriptive allow-list (strings redacted) and, for a memory
    the import creates, the four validated behaviour keys. A key that fails validation is dropped whole."""
    if not isinstance(raw, dict):
        return {}
    kept = {key: map_strings(value, clean_text) for key, value in raw.items() if key in IMPORTABLE_METADATA_KEYS}
    if not fresh:
        return kept
    if (forgotten := _valid_forgotten(raw.get("forgotten_observation_hashes"))) is not None:
        kept["forgotten_observation_hashes"] = forgotten
    if (score := _valid_score(raw.get("signal_score"))) is not None:
        kept["signal_score"] = score
    if raw.get("pin") is True:
        kept["pin"] = True
    if (past := _valid_history(raw.get("replaced_history"))) is not None:
        kept["replaced_history"] = past
    return kept


def _trust_keys(
    current: dict[str, Any], options: Options, now: datetime, *, author: str | None = None
) -> dict[str, Any]:
    provenance = current.get("provenance") if isinstance(current.get("provenance"), dict) else {}
    stamped: dict[str, Any] = {
        **(provenance or {}),
        "source": "trusted-import" if options.trust else "import",
        "imported_at": iso_time(now),
        "merge_strategy": options.strategy,
    }
    if author is not None and "author" not in stamped:  # a memory keeps who first wrote it
        stamped["author"] = author
    return {"trust": "trusted" if options.trust else "untrusted", "provenance": stamped}


def bundle_author(entry: dict[str, Any]) -> str | None:
    """Who the bundle says wrote an entry (`metadata.provenance.author`, as `memesh export` writes it), cleaned as
    the local author setting is (one line, printable, at most 128 characters); None when it names no one."""
    metadata = entry.get("metadata")
    provenance = metadata.get("provenance") if isinstance(metadata, dict) else None
    value = provenance.get("author") if isinstance(provenance, dict) else None
    if not isinstance(value, str):
        return None
    return shown_author(clean_text(value))


def entry_author(entry: dict[str, Any], options: Options) -> str | None:
    """Who an imported entry is recorded as written by: the bundle's author when it names one and the import keeps
    it, else the person importing."""
    found = bundle_author(entry) if options.keep_author else None
    return found if found is not None else options.author


def _texts(entry: dict[str, Any]) -> tuple[str | None, list[str]]:
    raw_title = entry.get("title")
    title = shorten(clean_name(clean_text(raw_title)), TITLE_MAX) or None if isinstance(raw_title, str) else None
    return title, clean_all(entry.get("observations", []))


def _forgotten(entity: Entity) -> set[str]:
    hashes = entity.metadata.get("forgotten_observation_hashes")
    return {h for h in hashes if isinstance(h, str)} if isinstance(hashes, list) else set()


def entry_name(entry: dict[str, Any]) -> str:
    """The name a (valid) bundle entry is stored under: on one line, trimmed, as remember cleans names."""
    return clean_key(entry["name"])


def plan_entry(existing: Entity | None, entry: dict[str, Any], options: Options, now: datetime) -> EntryPlan:
    """What importing `entry` does, given the memory of that name already stored (if any)."""
    name = entry_name(entry)
    title, observations = _texts(entry)
    tags = list(dict.fromkeys(clean_label(tag) for tag in entry.get("tags", [])))
    relations = clean_relations(entry.get("relations", []))
    if existing is not None and options.strategy == "skip":
        return EntryPlan("skipped")
    if existing is not None and existing.archived and not options.restore_archived:
        return EntryPlan("kept_archived")
    if existing is None:
        return _create(name, entry, title, observations, tags, relations, options, now)
    moved_to = options.namespace if options.namespace not in (None, existing.namespace) else None
    metadata = dict(existing.metadata)
    if moved_to is not None:
        metadata.update(previous_namespace=existing.namespace, namespace_moved_at=iso_time(now))
    if options.keep_metadata:
        metadata.update(bundle_metadata(entry.get("metadata"), fresh=False))
    if options.strategy == "append":
        excluded = _forgotten(existing)
        stored = set(existing.observations)
        new = [o for o in dict.fromkeys(observations) if o not in stored and observation_hash(o) not in excluded]
        adds_nothing = (
            not existing.archived
            and not new
            and all(tag in existing.tags for tag in tags)
            and title in (None, existing.title)
        )
        if adds_nothing and moved_to is None:
            return EntryPlan("skipped")
        if adds_nothing:
            # Only the move the call asked for: none of the file's text lands, so this is no append (and no reason to
            # distrust the memory); the bundle's metadata is not taken either.
            assert moved_to is not None
            return EntryPlan("skipped", write=_moved(existing, moved_to, now))
        if not options.trust:  # a trusted restore leaves an appended memory's own trust as it was
            metadata.update(_trust_keys(existing.metadata, options, now))
        return EntryPlan(
            "appended",
            write=EntityWrite(
                author=entry_author(entry, options),
                entity_id=existing.id,
                name=existing.name,
                type=existing.type,
                title=title if title is not None else existing.title,
                namespace=moved_to or existing.namespace,
                status=ACTIVE,
                metadata=metadata,
                observations=(*existing.observations, *new),
                tags=tuple(dict.fromkeys([*existing.tags, *tags])),
            ),
            relations=relations,  # an appended entry is not left untouched: its relations are rebuilt too
        )
    # overwrite
    new_title = title if title is not None else existing.title
    unchanged = (
        new_title == existing.title and observations == existing.observations and sorted(tags) == sorted(existing.tags)
    )
    if not unchanged:
        version = history.version(iso_time(now), existing.title, existing.observations, sorted(existing.tags))
        past = metadata.get("replaced_history")
        metadata["replaced_history"] = history.bound([*(past if isinstance(past, list) else []), version])
    metadata.update(_trust_keys(existing.metadata, options, now))
    return EntryPlan(
        "imported",
        overwritten=True,
        write=EntityWrite(
            author=entry_author(entry, options),
            entity_id=existing.id,
            name=existing.name,
            type=existing.type,
            title=new_title,
            namespace=moved_to or existing.namespace,
            status=ACTIVE,
            metadata=metadata,
            observations=tuple(observations),
            tags=tuple(tags),
        ),
        relations=relations,
    )


def _moved(existing: Entity, namespace: str, now: datetime) -> EntityWrite:
    """`existing` as it is, in `namespace`, with where it came from recorded so the move can be reversed."""
    metadata = {**existing.metadata, "previous_namespace": existing.namespace, "namespace_moved_at": iso_time(now)}
    return EntityWrite(
        entity_id=existing.id,
        name=existing.name,
        type=existing.type,
        title=existing.title,
        namespace=namespace,
        status=existing.status,
        metadata=metadata,
        observations=tuple(existing.observations),
        tags=tuple(existing.tags),
    )


def _create(  # noqa: PLR0917 - the parts of one entry, already taken apart by plan_entry
    name: str,
    entry: dict[str, Any],
    title: str | None,
    observations: list[str],
    tags: list[str],
    relations: list[tuple[str, str]],
    options: Options,
    now: datetime,
) -> EntryPlan:
    entity_type = canonical_type(clean_label(entry["type"]))
    namespace = options.namespace or entry.get("namespace") or DEFAULT_NAMESPACE
    if namespace not in NAMESPACES:
        namespace = DEFAULT_NAMESPACE
    kept = bundle_metadata(entry.get("metadata"), fresh=True) if options.keep_metadata else {}
    excluded = set(kept.get("forgotten_observation_hashes", []))
    unique = observations if entity_type in LESSON_TYPES else list(dict.fromkeys(observations))
    observations = [o for o in unique if observation_hash(o) not in excluded]
    metadata: dict[str, Any] = {**kept}
    metadata.setdefault("signal_score", signal_score(entity_type, observations, tags))
    author = entry_author(entry, options)
    metadata.update(_trust_keys({}, options, now, author=author))
    return EntryPlan(
        "imported",
        write=EntityWrite(
            author=author,
            entity_id=None,
            name=name,
            type=entity_type,
            title=title,
            namespace=namespace,
            status=ARCHIVED if entry.get("status") == ARCHIVED else ACTIVE,
            metadata=metadata,
            observations=tuple(observations),
            tags=tuple(tags),
            created_at=parse_created_at(entry.get("created_at")) or sqlite_time(now),
        ),
        relations=relations,
    )
