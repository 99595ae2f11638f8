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
    # The title is what a person reads; the name is what `forget`/`pin` take, so it follows when there is a title.
    label = f"{entity['title']} — {entity['name']}" if entity.get("title") else entity["name"]
    lines = [f"  {label}{badge} ({entity['type']})"]
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
    window = envelope.get("retrieval", {}).get("time_window")
    if window:  # broad and hybrid: the time the question named ranked memories of that time first
        lines.append(f'(time in the question: "{window["expression"]}" → {window["since"]} to {window["until"]})')
    if omitted:
        lines.append(
            f"({omitted['total'] - omitted['shown']} more result(s) omitted to keep the response under size — "
            "narrow the query, or open the dashboard for the full text)"
        )
    conflicts: list[str] = envelope.get("conflicts", [])
    if conflicts:
        lines += ["", f"Warning: Conflicts detected: {'; '.join(conflicts)}"]
    return lines


def forget_line(output: Mapping[str, Any]) -> str:
    """What forget changed."""
    if output.get("already_archived"):
        return f'"{output["name"]}" was already archived: nothing changed'
    if output.get("archived"):
        return f'📦 Archived "{output["name"]}"'
    return f"✂️  Removed observation ({output['remaining_observations']} remaining)"


def memories(count: int) -> str:
    """`1 memory`, `N memories`."""
    return f"{count} memory" if count == 1 else f"{count} memories"


def import_lines(result: Mapping[str, Any], *, trusted: bool, suggestion: str) -> list[str]:
    """What an import did (stdout): the counts, then what trust the rows got, then what was left archived.

    `suggestion` is the command that would restore the same file as trusted; it is offered only when nothing
    already here would be replaced by it.
    """
    imported, appended, skipped = result["imported"], result["appended"], result["skipped"]
    overwritten = f" ({result['overwritten']} overwritten)" if result["overwritten"] else ""
    lines = [f"Imported: {imported}{overwritten}, Skipped: {skipped}, Appended: {appended}"]
    if trusted and appended:
        # The spec: with --trust the summary adds only what a plain import would not already show.
        their = "its" if appended == 1 else "their"
        lines.append(f"{memories(appended)} appended kept {their} own trust.")
    if not trusted and imported:
        if skipped + appended == 0:
            hint = f" If this file is your own backup, run: {suggestion}"
        else:
            hint = (
                " (--trust --merge overwrite not suggested: it would also replace "
                f"{memories(skipped + appended)} already here.)"
            )
        lines.append(f"{memories(imported)} imported as untrusted — recall works, auto-injection does not.{hint}")
    if not trusted and appended:
        lines.append(f"Marked untrusted because this file added text to them: {memories(appended)} you already had.")
    if result["kept_archived"]:
        lines.append(
            f"Kept archived: {result['kept_archived']} (you archived these; the file names them, so they were left "
            "untouched). Add --restore-archived to bring them back."
        )
    return lines


def skipped_relation_lines(skipped: list[str]) -> list[str]:
    """Each link a restore could not rebuild, and how to keep it (stderr; not an error)."""
    if not skipped:
        return []
    return [
        f"Note: {len(skipped)} relation(s) not restored — the target is not in this bundle:",
        *(f"  {relation}" for relation in skipped),
        "       Export those entities too (widen --limit, or drop --tag/--namespace) to keep the links.",
    ]


def import_error_lines(errors: list[str]) -> list[str]:
    """Each bundle entry that failed (stderr; the command then exits 1)."""
    return ["Errors:", *(f"  {error}" for error in errors)] if errors else []


def note_detail_lines(result: Mapping[str, Any]) -> list[str]:
    """What a note-file run left alone (stderr): each skipped file, files gone, files past the per-run cap."""
    lines = [f"  skipped {skip['path']}: {skip['reason']}" for skip in result["skipped"]]
    if result["markedMissing"]:
        lines.append(
            f"  file gone, memory kept and tagged source:note-file:missing: {', '.join(result['markedMissing'])}"
        )
    if result["more"]:
        lines.append(f"  {result['more']} more file(s) past the per-run cap — run the command again to continue")
    return lines


TASK_FIELDS = {"goal": "Goal", "next": "Next", "blocked": "Blocked", "done": "Had just finished"}


def task_lines(output: Mapping[str, Any], label: str) -> list[str]:
    """A task-state read (heading, then each stated field) or what a write changed."""
    state: Mapping[str, str] = output["state"]
    fields = [f"- {shown}: {state[key]}" for key, shown in TASK_FIELDS.items() if state.get(key)]
    changed: list[str] | None = output.get("changed")
    if changed is None:
        # A read ends with the full project id: what GET /v1/task-state?project= and --project take.
        project = f"Project id: {output['project']}"
        if not fields:
            return [f'Nothing recorded for "{label}" yet.', 'Set it with:  memesh task --goal "…" --next "…"', project]
        updated = f" (updated {state['updated_at']})" if state.get("updated_at") else ""
        return [f'Stated about "{label}"{updated}:', *fields, project]
    if not changed:
        return [f'No change — "{label}" already said exactly that.']
    return [f'Updated {", ".join(changed)} for "{label}".', *fields]
