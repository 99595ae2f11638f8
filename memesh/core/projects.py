"""Which project a memory belongs to, for the project listing: an explicit `project:<id>` tag, or else a name that
starts with a known project's label followed by a separator (`memesh-auth-decision` under project `memesh~<hash>`).
A prefix only ever points at a project some tag already named, so one stray name cannot invent a project."""

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


def prefix_owner(name: str, labels: dict[str, str]) -> str | None:
    """The project whose label opens `name` before a separator (the longest such label), None when none does."""
    best: str | None = None
    for found in _SEPARATOR.finditer(name):
        candidate = name[: found.start()]
        if candidate in labels:
            best = labels[candidate]
    return best


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
    if labels:
        for name, kind in untagged:
            owner = prefix_owner(name, labels)
            if owner is not None:
                types[owner][kind] = types[owner].get(kind, 0) + 1
                sources[owner].add("prefix")
    listing: list[Project] = []
    for project, counts in types.items():
        ranked = sorted(counts, key=lambda kind: (-counts[kind], kind))[:TYPES_SHOWN]
        found = sources[project]
        source: Source = "mixed" if len(found) > 1 else ("tag" if "tag" in found else "prefix")
        listing.append({"name": project, "count": sum(counts.values()), "types": ranked, "source": source})
    listing.sort(key=lambda row: (-row["count"], row["name"]))
    return listing
