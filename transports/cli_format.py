"""What the CLI prints for people (without --json): plain functions from a tool's output to lines of text."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

DISPLAY_CHARS = 500
SHOWN_OBSERVATIONS = 3
LIMIT_NOTE = " (search limit reached — more may match; raise --limit)"
# The marker the size cap ends a cut observation with (memesh.core.sizecap.CUT_MARKER), with its separating space.
_CUT = re.compile(r" ?… \(\+\d+ more bytes\)\Z")


def remember_lines(output: Mapping[str, Any], *, namespace: str | None, title_derived: bool) -> list[str]:
    """The summary of a stored memory: what was stored, then each consequence worth knowing (stdout)."""
    lines = [f'✅ Stored "{output["name"]}" ({output["observations"]} observations, {output["tags"]} tags)']
    if title_derived and output.get("title"):
        lines.append(f"   title: {output['title']}")
    moved = output.get("movedFromNamespace")
    if moved:
        # A move takes the memory out of every view scoped to where it was, so it is never silent.
        lines.append(
            f"   moved: {moved} → {namespace} (was in {moved}; re-run with --namespace {moved} to put it back)"
        )
    if output.get("superseded"):
        lines.append(f"   archived as superseded: {', '.join(output['superseded'])}")
    # From what was created, never from what was asked: a failed target must not be reported as a conflict.
    contradicted = [r["to"] for r in output.get("relationsCreated", []) if r["type"] == "contradicts"]
    if contradicted:
        lines.append(f"   conflicts stated: {', '.join(contradicted)}")
    return lines


def relation_error_lines(output: Mapping[str, Any]) -> list[str]:
    """Each relation that was not created (stderr)."""
    return [f"   ⚠️  {error}" for error in output.get("relationErrors", [])]


def shown_observation(text: str, *, cut: bool) -> str:
    """One observation as a terminal shows it: at most 500 characters, saying how much more there is."""
    if cut:
        return f"{_CUT.sub('', text)[:DISPLAY_CHARS]} … (cut; full text in the dashboard)"
    if len(text) > DISPLAY_CHARS:
        return f"{text[:DISPLAY_CHARS]} … (+{len(text) - DISPLAY_CHARS} more chars)"
    return text


def _entity_lines(entity: Mapping[str, Any]) -> list[str]:
    badge = " [archived]" if entity.get("archived") else ""
    lines = [f"  {entity['name']}{badge} ({entity['type']})"]
    observations: list[str] = entity.get("observations", [])
    counts = (entity.get("truncated") or {}).get("observations")
    total = counts["total"] if counts else len(observations)
    shown = observations[:SHOWN_OBSERVATIONS]
    for index, text in enumerate(shown):
        # Only the first observation packed can have been cut by the size cap, and only when the entity says so.
        cut = counts is not None and index == 0 and _CUT.search(text) is not None
        lines.append(f"    - {shown_observation(text, cut=cut)}")
    if total > len(shown):
        lines.append(f"    ... +{total - len(shown)} more")
    return lines


def recall_lines(envelope: Mapping[str, Any], *, searched: bool) -> list[str]:
    """The ranked memories, then how many and whether more exist or were left out, then any conflicts."""
    entities: list[Mapping[str, Any]] = envelope.get("entities", [])
    omitted = envelope.get("entities_omitted")
    if not entities and not omitted:
        return ["No results found in the keyword index." if searched else "No results found."]
    lines = [line for entity in entities for line in _entity_lines(entity)]
    note = LIMIT_NOTE if envelope.get("retrieval", {}).get("truncated") else ""
    lines += ["", f"{len(entities)} result(s){note}"]
    if omitted:
        lines.append(
            f"({omitted['total'] - omitted['shown']} more result(s) omitted to keep the response under size — "
            "narrow the query, or open the dashboard for the full text)"
        )
    conflicts: list[str] = envelope.get("conflicts", [])
    if conflicts:
        lines += ["", "Warning: Conflicts detected:", *(f"  {conflict}" for conflict in conflicts)]
    return lines


def forget_line(output: Mapping[str, Any]) -> str:
    """What forget changed."""
    if output.get("archived"):
        return f'📦 Archived "{output["name"]}"'
    return f"✂️  Removed observation ({output['remaining_observations']} remaining)"
