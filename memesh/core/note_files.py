"""Note files (Markdown with YAML frontmatter carrying a `name`): parsing and the pure rules of ingestion."""

from __future__ import annotations

import hashlib
import json
import re
from typing import Any

from memesh.core.clean import clean_name
from memesh.core.notes import TITLE_MAX, clean_note, shorten, split_observations
from memesh.records import dataclass

NOTE_TAG = "source:note-file"
MISSING_TAG = "source:note-file:missing"
MAX_FILE_BYTES = 256 * 1024
MAX_FILES_PER_RUN = 500
MAX_OBSERVATIONS = 100
DEFAULT_TYPE = "note"
_KEY_LINE = re.compile(r"^\s*([A-Za-z0-9_.-]+)\s*:\s*(.*)$")


def dir_id(real_dir: str) -> str:
    """A digest naming the directory without revealing its path."""
    return hashlib.sha256(real_dir.encode()).hexdigest()[:16]


def content_hash(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _unquote(value: str) -> str:
    value = value.strip()
    if len(value) >= 2 and value[0] == value[-1] == '"':
        try:
            parsed = json.loads(value)
        except (ValueError, RecursionError):
            return value[1:-1]
        return parsed if isinstance(parsed, str) else value[1:-1]
    if len(value) >= 2 and value[0] == value[-1] == "'":
        return value[1:-1].replace("''", "'")
    return value


def parse_frontmatter(text: str) -> tuple[dict[str, Any], str] | None:
    """(frontmatter, body) for a file opening with a `---` block; None when there is none.

    A small YAML subset: `key: value` scalars (quoted or not) and one level of nested maps; lists and block scalars
    are ignored. That is all a note file's frontmatter needs, and nothing in it is ever executed.
    """
    lines = text.lstrip("\ufeff").replace("\r\n", "\n").replace("\r", "\n").split("\n")
    if not lines or lines[0].strip() != "---":
        return None
    end = next((i for i in range(1, len(lines)) if lines[i].strip() in ("---", "...")), None)
    if end is None:
        return None
    data: dict[str, Any] = {}
    nested: dict[str, Any] | None = None
    for line in lines[1:end]:
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        match = _KEY_LINE.match(line)
        if not match:
            continue
        key, value = match.group(1), match.group(2)
        if line[:1].isspace() and nested is not None:
            nested[key] = _unquote(value)
            continue
        if value.strip() == "":
            nested = {}
            data[key] = nested
        else:
            nested = None
            data[key] = _unquote(value)
    return data, "\n".join(lines[end + 1 :])


@dataclass(frozen=True)
class NoteFile:
    """What a readable note file declares, cleaned like a note string."""

    name: str
    type: str
    title: str
    observations: list[str]


def _string(value: Any) -> str | None:
    return value.strip() or None if isinstance(value, str) else None


def read_note(data: bytes) -> NoteFile | str:
    """The note a file declares, or the reason it is skipped."""
    parsed = parse_frontmatter(data.decode("utf-8", errors="replace"))
    if parsed is None:
        return "no frontmatter — a note file needs a `---` block with a name"
    front, body = parsed
    raw_name = _string(front.get("name"))
    if raw_name is None:
        return "frontmatter has no name"
    name = clean_name(clean_note(raw_name))[:255]
    if not name:
        return "frontmatter has no name"
    metadata = front.get("metadata")
    raw_type = metadata.get("type") if isinstance(metadata, dict) and "type" in metadata else front.get("type")
    entity_type = clean_note(raw_type)[:100] if isinstance(raw_type, str) else ""
    description = clean_note(front["description"]) if isinstance(front.get("description"), str) else ""
    observations = split_observations(clean_note(body))
    if not observations and description:
        observations = [description]
    if not observations:
        return "empty note — no description and no body"
    if len(observations) > MAX_OBSERVATIONS:
        return f"splits into {len(observations)} paragraphs; at most 100 are stored per memory"
    title = shorten(description or observations[0], TITLE_MAX)
    return NoteFile(name=name, type=entity_type or DEFAULT_TYPE, title=title, observations=observations)


def note_tags(existing_tags: list[str], project: str | None) -> list[str]:
    """The file owns the source:* tags; any other tag a person added is kept; the project tag is set once."""
    kept = [tag for tag in existing_tags if not tag.startswith("source:")]
    tags = [NOTE_TAG, *kept]
    if project and not any(tag.startswith("project:") for tag in kept):
        tags.append(f"project:{project}")
    return tags


def summary_line(result: dict[str, Any]) -> str:
    """`X created, Y replaced, Z unchanged[, M moved][, R restored], S skipped[, …]` for the CLI."""
    parts = [f"{result['created']} created", f"{result['replaced']} replaced", f"{result['unchanged']} unchanged"]
    if result["repathed"]:
        parts.append(f"{result['repathed']} moved")
    if result["restored"]:
        parts.append(f"{result['restored']} restored")
    parts.append(f"{len(result['skipped'])} skipped")
    if result["refusedNow"]:
        parts.append(f"{result['refusedNow']} newly refused")
    if result["markedMissing"]:
        parts.append(f"{len(result['markedMissing'])} marked missing")
    if result["more"]:
        parts.append(f"{result['more']} more not processed (per-run cap)")
    return ", ".join(parts)
