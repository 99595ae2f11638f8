"""The agent-context size cap on recall (MCP and CLI only): 8 KB per entity, 32 KB per response.

An answer to recall can go straight into an agent's context, so what comes back is bounded. Each entity's tags and
observations are packed into 8 KB of JSON-serialized bytes (tags first, each list cut from the end, the very first
observation cut mid-way with a `… (+N more bytes)` marker when it alone is over the 8 KB); whole entities are then
dropped from the end until the envelope fits 32 KB. `file:*` tags are never shown here. Everything cut is reported
with its original counts, never guessed at.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from json.encoder import encode_basestring
from typing import Any

ENTITY_MAX_BYTES = 8 * 1024
RESPONSE_MAX_BYTES = 32 * 1024
RESPONSE_RESERVE_BYTES = 128
CUT_MARKER = "… (+{n} more bytes)"


# One encoder for every measurement: json.dumps with options builds a new encoder on each call.
_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))


def json_bytes(value: Any) -> int:
    """Size of `value` as compact UTF-8 JSON, the unit both caps are stated in."""
    return len(_ENCODER.encode(value).encode())


def _pack(items: Sequence[str], budget: int) -> tuple[list[str], int]:
    """The longest prefix of `items` whose JSON array fits `budget` bytes, and that array's size."""
    # A compact JSON array is `[`, its items joined by `,`, and `]`: each string is measured once, and the size of
    # any prefix follows from those sizes exactly.
    sizes = [len(encode_basestring(item).encode()) for item in items]
    whole = sum(sizes) + max(len(sizes), 1) + 1
    if whole <= budget:  # no prefix of an array is longer than the whole array
        return list(items), whole
    kept: list[str] = []
    size = 2
    for item, item_size in zip(items, sizes, strict=True):
        grown = size + item_size + (1 if kept else 0)
        if grown > budget:
            break
        kept.append(item)
        size = grown
    return kept, size


def cut_to_fit(text: str, budget: int) -> str | None:
    """`text` cut so `[text]` fits `budget` bytes as JSON, ending in the marker that says how much went; None if
    not even the marker fits."""
    raw = text.encode()
    limit = budget
    while True:
        end = min(limit, len(raw))
        while 0 < end < len(raw) and (raw[end] & 0xC0) == 0x80:
            end -= 1  # never split a UTF-8 sequence
        head = raw[:end].decode()
        marked = f"{head}{' ' if head else ''}{CUT_MARKER.format(n=len(raw) - end)}"
        size = json_bytes([marked])
        if size <= budget:
            return marked
        if limit == 0:
            return None
        limit = max(0, min(limit - 1, limit * budget // size))


def cap_entity(entity: dict[str, Any]) -> dict[str, Any]:
    """The entity with `file:*` tags removed and its tags and observations packed into the per-entity budget."""
    tags = [tag for tag in entity.get("tags", []) if not tag.startswith("file:")]
    observations: list[str] = entity.get("observations", [])
    kept_tags, tags_size = _pack(tags, ENTITY_MAX_BYTES)
    budget = max(0, ENTITY_MAX_BYTES - tags_size)
    kept_obs, _ = _pack(observations, budget)
    cut = False
    # Only an observation that could never fit (alone over the whole 8 KB) is cut; one that merely does not fit
    # beside the tags is dropped whole like any other, so tags that fill the budget leave no observations.
    if not kept_obs and observations and json_bytes(observations[:1]) > ENTITY_MAX_BYTES:
        first = cut_to_fit(observations[0], budget)
        if first is not None:
            kept_obs, cut = [first], True
    capped = {**entity, "tags": kept_tags, "observations": kept_obs}
    truncated: dict[str, dict[str, int]] = {}
    if len(kept_obs) < len(observations) or cut:
        truncated["observations"] = {"shown": len(kept_obs), "total": len(observations)}
    if len(kept_tags) < len(tags):
        truncated["tags"] = {"shown": len(kept_tags), "total": len(tags)}
    if truncated:
        capped["truncated"] = truncated
    return capped


def cap_envelope(envelope: dict[str, Any]) -> dict[str, Any]:
    """The recall envelope with every entity capped and whole entities dropped from the end to fit 32 KB."""
    entities = [cap_entity(entity) for entity in envelope["entities"]]
    rest = {key: value for key, value in envelope.items() if key != "entities"}
    budget = RESPONSE_MAX_BYTES - RESPONSE_RESERVE_BYTES
    size = json_bytes({"entities": entities, **rest})
    count = len(entities)
    if size > budget:
        # Dropping entities from the end takes each one's JSON and the comma before it off the size: each entity
        # is measured once, not every shorter envelope.
        sizes = [json_bytes(entity) for entity in entities]
        while count > 0 and size > budget:
            count -= 1
            size -= sizes[count] + (1 if count else 0)
    shown = entities[:count]
    capped: dict[str, Any] = {"entities": shown, **rest}
    if count < len(entities) or any("truncated" in entity for entity in shown):
        capped["truncated"] = True
    if count < len(entities):
        capped["entities_omitted"] = {"shown": count, "total": len(entities)}
    return capped
