"""Which project a memory belongs to, for the project listing: an explicit `project:<id>` tag, or else a name that
starts with a known project's label followed by a separator (`memesh-auth-decision` under project `memesh~<hash>`),
or else a name prefix that no tag names but at least two untagged memories share (`billing-retry-policy` and
`billing-refunds` list project `billing`, source `prefix`). One stray name cannot invent a project, and the prefixes
MeMesh's own generated names open with (`lesson-`, `session-`, `commit-`, …) name none."""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Final, Literal

from memesh.core.identity import project_label
from memesh.generated.http.projects_output import Project

TYPES_SHOWN: Final = 5
Source = Literal["tag", "prefix", "mixed"]
_SEPARATOR = re.compile(r"[-:/_.]")
_MIN_LABEL = 3  # "ui-" or "db-" prefixes are too common to mean a project
PREFIX_MIN_MEMORIES: Final = 2  # a prefix only one name opens with is that name's wording, not a project
# The first word of names MeMesh (or a host through it) generates: they say what kind of memory it is, not whose.
GENERATED_PREFIXES: Final = frozenset(
    {
        "lesson", "task", "session", "commit", "file", "product", "delegation", "hermes", "plugin", "week",
        "digest", "demo", "note", "notes", "memory", "mem", "conversation", "turn", "auto", "test", "tmp", "todo",
    }
)  # fmt: skip


def prefix_owner(name: str, labels: dict[str, str]) -> str | None:
    """The project whose label opens `name` before a separator (the longest such label), None when none does."""
    best: str | None = None
    for found in _SEPARATOR.finditer(name):
        candidate = name[: found.start()]
        if candidate in labels:
            best = labels[candidate]
    return best


def leading_prefix(name: str) -> str | None:
    """The word a name opens with before its first separator, when it could name a project: 3 characters or more,
    not only digits, not a generated name's kind."""
    found = _SEPARATOR.search(name)
    if found is None:
        return None
    prefix = name[: found.start()]
    if len(prefix) < _MIN_LABEL or prefix.isdigit() or prefix.lower() in GENERATED_PREFIXES:
        return None
    return prefix


def merge(tagged: Iterable[tuple[str, str, int]], untagged: Iterable[tuple[str, str]]) -> list[Project]:
    """(project, type, count) tag rows and (name, type) untagged memories → the listing, largest project first."""
    types: dict[str, dict[str, int]] = {}
    for project, kind, count in tagged:
        types.setdefault(project, {})
        types[project][kind] = types[project].get(kind, 0) + count
    sources = {project: {"tag"} for project in types}
    labels: dict[str, str] = {}
    for project in sorted(types):
        label = project_label(project)
        if len(label) >= _MIN_LABEL:
            labels.setdefault(label, project)
    unowned: dict[str, list[str]] = {}
    for name, kind in untagged:
        owner = prefix_owner(name, labels) if labels else None
        if owner is not None:
            types[owner][kind] = types[owner].get(kind, 0) + 1
            sources[owner].add("prefix")
        elif (prefix := leading_prefix(name)) is not None:
            unowned.setdefault(prefix, []).append(kind)
    for prefix, kinds in unowned.items():
        if len(kinds) >= PREFIX_MIN_MEMORIES and prefix not in types:
            types[prefix] = {kind: kinds.count(kind) for kind in kinds}
            sources[prefix] = {"prefix"}
    listing: list[Project] = []
    for project, counts in types.items():
        ranked = sorted(counts, key=lambda kind: (-counts[kind], kind))[:TYPES_SHOWN]
        found = sources[project]
        source: Source = "mixed" if len(found) > 1 else ("tag" if "tag" in found else "prefix")
        listing.append({"name": project, "count": sum(counts.values()), "types": ranked, "source": source})
    listing.sort(key=lambda row: (-row["count"], row["name"]))
    return listing
