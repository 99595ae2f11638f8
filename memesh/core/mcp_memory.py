"""The official MCP memory server's `memory.jsonl` as an import bundle, as pure functions.

That server keeps one JSON object a line: `{"type": "entity", "name", "entityType", "observations"}` and
`{"type": "relation", "from", "to", "relationType"}`. An entity becomes a memory (entityType as its type, its
observations as they are); a relation becomes a relation of its `from` memory. A name MeMesh cannot keep as it is
(blank once cleaned, longer than a name may be, shaped like a credential, or the same as another once cleaned) is
given a name it can, and every such mapping is reported; nothing is dropped here. The bundle then passes the
import's own validation and cleaning like any other.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any, Final

from memesh.core.clean import clean_key
from memesh.core.keys import key_problem
from memesh.records import dataclass

FORMAT: Final = "mcp-memory"
NAME_MAX: Final = 255  # the bundle schema's maxLength for a name
_KINDS: Final = frozenset({"entity", "relation"})


@dataclass(frozen=True)
class Converted:
    """The bundle, each name given another one (`{"from", "to", "why"}`), and the lines that could not be read."""

    bundle: dict[str, Any]
    renamed: list[dict[str, str]]
    problems: list[str]
    relations: int


def recognized(text: str) -> bool:
    """Whether `text` reads as a memory.jsonl: its first line a JSON object of type entity or relation (a damaged
    line further on is reported by the conversion, not taken as another format)."""
    first = next((line for line in text.split("\n", 50) if line.strip()), None)
    if first is None or "\n" in first:  # blank, or a first line past the ones split off
        return False
    try:
        record = json.loads(first)
    except (ValueError, RecursionError):  # nested past the parser: the bundle reader's refusal says so
        return False
    return isinstance(record, dict) and record.get("type") in _KINDS


def _digest(raw: str) -> str:
    return hashlib.sha256(raw.encode("utf-8", "surrogatepass")).hexdigest()[:8]


class _Names:
    """Each name of the file mapped once to the name it is stored under."""

    def __init__(self) -> None:
        self.mapped: dict[str, str] = {}
        self.taken: set[str] = set()
        self.renamed: list[dict[str, str]] = []

    def of(self, raw: str) -> str:
        if raw in self.mapped:
            return self.mapped[raw]
        name, why = self._usable(raw)
        if name in self.taken:
            serial = 2
            while f"{name}-{serial}" in self.taken:
                serial += 1
            name, why = f"{name}-{serial}", "the same as another name once cleaned"
        self.taken.add(name)
        self.mapped[raw] = name
        if name != raw:
            self.renamed.append({"from": raw, "to": name, "why": why})
        return name

    @staticmethod
    def _usable(raw: str) -> tuple[str, str]:
        cleaned = clean_key(raw)
        problem = key_problem(cleaned)
        if problem is not None:
            why = "blank once cleaned" if not cleaned else "shaped like a credential"
            return f"mcp-entity-{_digest(raw)}", why
        if len(cleaned) > NAME_MAX:
            return f"{cleaned[: NAME_MAX - 9].rstrip()}-{_digest(raw)}", f"longer than {NAME_MAX} characters"
        return cleaned, "cleaned (control characters, line breaks or Unicode form)"


def convert(text: str) -> Converted:
    """The memory.jsonl `text` as an export bundle (entities in file order, relations on their `from` entity)."""
    names = _Names()
    entities: dict[str, dict[str, Any]] = {}
    pending: list[tuple[int, dict[str, Any]]] = []
    problems: list[str] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except ValueError:
            problems.append(f"line {number}: not JSON")
            continue
        except RecursionError:
            problems.append(f"line {number}: nested deeper than JSON can be read")
            continue
        kind = record.get("type") if isinstance(record, dict) else None
        if kind == "entity" and isinstance(record.get("name"), str):
            observations = record.get("observations", [])
            if not isinstance(observations, list):
                problems.append(f"line {number}: observations is not a list; the entity is kept without them")
                observations = []
            entry = entities.setdefault(
                names.of(record["name"]),
                {"name": names.of(record["name"]), "type": record.get("entityType"), "observations": []},
            )
            entry["observations"].extend(observations)  # non-strings are refused by the import's validation
        elif kind == "relation":
            pending.append((number, record))
        else:
            problems.append(f"line {number}: neither an entity with a name nor a relation")
    relations = 0
    for number, record in pending:
        source, target, relation_type = record.get("from"), record.get("to"), record.get("relationType")
        if not (isinstance(source, str) and isinstance(target, str) and isinstance(relation_type, str)):
            problems.append(f"line {number}: a relation needs from, to and relationType as text")
            continue
        owner = entities.get(names.mapped.get(source, ""))
        if owner is None:
            problems.append(f"line {number}: the relation's `from` ({source!r}) is no entity of the file")
            continue
        owner.setdefault("relations", []).append({"to": names.of(target), "type": relation_type})
        relations += 1
    listed = list(entities.values())
    bundle = {"version": "3.1.0", "exported_at": "", "entity_count": len(listed), "truncated": False,
              "entities": listed}  # fmt: skip
    return Converted(bundle, names.renamed, problems, relations)
