"""Which memories a drawing of the graph shows: pure choices over ids and relations, no database.

The view is bounded so it stays readable and quick at any size: at most `limit` memories, either the most
connected ones or the neighbourhood of one memory, nearest first. Without archived memories, a memory superseded by
a shown one still joins it (archived), so a `supersedes` edge is never drawn into nothing.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import NamedTuple

SUPERSEDES = "supersedes"


class Link(NamedTuple):
    """One relation by the ids of its ends, and whether each end is active."""

    from_id: int
    to_id: int
    type: str
    from_active: bool
    to_active: bool


class NodeRow(NamedTuple):
    """One memory as the graph draws it; `degree` counts its relations either way in the whole store."""

    id: int
    name: str
    title: str | None
    type: str
    active: bool
    degree: int


def _superseded(links: Iterable[Link]) -> dict[int, list[int]]:
    """The archived memories each memory supersedes."""
    out: dict[int, list[int]] = {}
    for link in links:
        if link.type == SUPERSEDES and not link.to_active:
            out.setdefault(link.from_id, []).append(link.to_id)
    return out


def with_superseded(
    ranked: Sequence[int], links: Iterable[Link], limit: int, *, include_archived: bool
) -> tuple[list[int], bool]:
    """The first `limit` of `ranked`, each followed by the archived memories it supersedes (unless archived ones
    are in `ranked` already), and whether anything that qualified was left out."""
    superseded = {} if include_archived else _superseded(links)
    wanted = list(dict.fromkeys(i for entity_id in ranked for i in (entity_id, *superseded.get(entity_id, ()))))
    return wanted[:limit], len(wanted) > limit


def far_ends(frontier: Iterable[int], links: Iterable[Link], *, include_archived: bool) -> list[int]:
    """The memories one relation away from `frontier`, in the order of the relations: an archived one only with
    `include_archived` or when a memory of the frontier supersedes it."""
    inside = set(frontier)
    found: list[int] = []
    for link in links:
        if link.from_id in inside:
            admitted = include_archived or link.to_active or link.type == SUPERSEDES
            if admitted:
                found.append(link.to_id)
        if link.to_id in inside and (include_archived or link.from_active):
            found.append(link.from_id)
    return [entity_id for entity_id in dict.fromkeys(found) if entity_id not in inside]
