"""`metadata.replaced_history`: the versions a replace keeps, bounded to the newest 20 and 64 KB."""

from __future__ import annotations

from typing import Any

from memesh.core.sizecap import json_bytes

HISTORY_MAX_VERSIONS = 20
HISTORY_MAX_BYTES = 64 * 1024


def version(replaced_at: str, title: str | None, observations: list[str], tags: list[str]) -> dict[str, Any]:
    """One kept version, shaped as every reader of the history expects."""
    return {"replaced_at": replaced_at, "title": title, "observations": list(observations), "tags": list(tags)}


def _fits(versions: list[dict[str, Any]]) -> bool:
    return json_bytes(versions) <= HISTORY_MAX_BYTES


def bound(history: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Oldest versions dropped until 20 remain within 64 KB; a single version still too large keeps its title
    (shortened if need be), then the observations, then the tags that fit, and is marked `truncated: true`."""
    kept = history[-HISTORY_MAX_VERSIONS:]
    while len(kept) > 1 and not _fits(kept):
        kept = kept[1:]
    if len(kept) != 1 or _fits(kept):
        return kept
    only = kept[0]
    pared: dict[str, Any] = {**only, "observations": [], "tags": [], "truncated": True}
    title = pared.get("title")
    while isinstance(title, str) and title and not _fits([pared]):
        title = title[: int(len(title) * 0.9)]
        pared["title"] = title
    for key in ("observations", "tags"):
        for item in only.get(key, []):
            trial = {**pared, key: [*pared[key], item]}
            if not _fits([trial]):
                break
            pared = trial
    return [pared]


def summarize(metadata: dict[str, Any]) -> dict[str, Any]:
    """Metadata as recall shows it: the history replaced by `replaced_history_count`."""
    history = metadata.get("replaced_history")
    if not isinstance(history, list):
        return metadata
    shown = {key: value for key, value in metadata.items() if key != "replaced_history"}
    shown["replaced_history_count"] = len(history)
    return shown
