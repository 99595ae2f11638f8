"""How what a person typed (`memesh remember`: free text, a name, a title, observations) becomes one memory.

Free text alone is a note: title, observations and name are derived from it, exactly as remember's `note` does.
Free text given together with a title or observations is not replaced by them: it contributes its own observations
(split exactly as a note is), the explicit observations follow them, and an explicit title wins over the one the
text derives. The result is a structured remember request, held to the same 100-observation cap as every other path
— counted over the final array, the text's observations plus the explicit ones.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from returns.result import Failure, Result, Success

from memesh.core.notes import NOTE_TYPE, derive_note, note_name, text_observations
from memesh.core.remembering import MAX_OBSERVATIONS
from memesh.errors import MemeshError
from memesh.records import dataclass

# In the command's words: the person typed flags, so the refusal names them.
TYPE_WITH_NAME = (
    "type: --type is required with --name and --obs or --title (except on a --replace of a memory that exists, "
    "which keeps its type)"
)
REPLACE_NEEDS_NAME = "--replace requires --name: a name derived from the text changes with it, so it names nothing"
NOTHING_TO_REMEMBER = 'give the text to remember (memesh remember "…"), or --name and --type with --obs'


@dataclass(frozen=True)
class TextRequest:
    """The structured form of text plus flags; None fields are left out of the request."""

    name: str | None
    type: str | None
    title: str | None
    observations: list[str]
    title_derived: bool


@dataclass(frozen=True)
class Remembered:
    """What remember is asked: `request` in the remember tool's input shape, and whether its title was derived
    from the text under a name the person gave (it then names a new memory but leaves an existing one's title)."""

    request: dict[str, Any]
    title_derived: bool


def from_text(
    text: str, *, name: str | None, entity_type: str | None, title: str | None, observations: Sequence[str]
) -> Result[TextRequest, MemeshError]:
    """The text's own observations followed by `observations`, titled by `title` or else by the text; a name is
    derived from the text when none is given (and the type then defaults to "note", as a note's does).
    Failure(validation.bad-body) when that comes to more than 100 observations."""
    titled = title is not None and bool(title.strip())  # a blank title counts as omitted, as remember says
    derived = derive_note(text)
    own = text_observations(text, titled=titled)
    combined = [*own, *observations]
    if len(combined) > MAX_OBSERVATIONS:
        return Failure(
            MemeshError.bad_body(
                f"observations: that is {len(combined)} observations; at most {MAX_OBSERVATIONS} are stored per memory."
            )
        )
    final_title = title if titled else (derived.title if derived else title)
    if name is None and derived is not None:
        name = note_name(final_title or derived.title, derived.cleaned)
        entity_type = entity_type or NOTE_TYPE
    return Success(
        TextRequest(
            name=name,
            type=entity_type,
            title=final_title,
            observations=combined,
            title_derived=not titled and derived is not None,
        )
    )


def as_typed(typed: Mapping[str, Any]) -> Result[Remembered, MemeshError]:
    """The remember request for what was typed: the note form for text alone (under the name given, if any), the
    combined form for text with --obs or --title, the structured form without text. Failure(validation.bad-body)
    for --replace without --name, nothing to remember, --obs/--title under a name without --type (unless
    replacing), or text and observations over the cap."""
    text, name, entity_type, title = (typed.get(key) for key in ("text", "name", "type", "title"))
    observations: list[str] | None = typed.get("obs")
    replace = bool(typed.get("replace", False))
    if replace and name is None:
        return Failure(MemeshError.bad_body(REPLACE_NEEDS_NAME))
    if text is None and name is None:
        return Failure(MemeshError.bad_body(NOTHING_TO_REMEMBER))
    note_form = text is not None and observations is None and title is None
    # Text under a name is a note (type note, or the type the memory has); --obs/--title under a name need --type.
    if name is not None and entity_type is None and not replace and not note_form:
        return Failure(MemeshError.bad_body(TYPE_WITH_NAME))
    request: dict[str, Any] = {}
    title_derived = False
    if note_form:
        # A note sent to a memory that exists appends to it and keeps its title (--replace rewrites it, title too).
        request["note"] = text
        if name is not None:
            request["name"] = name
    elif text is not None:
        match from_text(text, name=name, entity_type=entity_type, title=title, observations=observations or []):
            case Failure() as refused:
                return refused
            case Success(shaped):
                pass
        fields = {"name": shaped.name, "type": shaped.type, "title": shaped.title}
        request.update({key: value for key, value in fields.items() if value is not None})
        if shaped.observations:
            request["observations"] = shaped.observations
        # Under a name the person gave, the derived title is for a new memory only.
        title_derived = name is not None and not replace and shaped.title_derived
    else:
        fields = {"name": name, "title": title, "observations": observations}
        request.update({key: value for key, value in fields.items() if value is not None})
    if entity_type is not None:
        request["type"] = entity_type
    for key in ("tags", "namespace"):
        if typed.get(key) is not None:
            request[key] = typed[key]
    relations = [{"to": to, "type": "supersedes"} for to in typed.get("supersedes") or []]
    relations += [{"to": to, "type": "contradicts"} for to in typed.get("contradicts") or []]
    if relations:
        request["relations"] = relations
    if replace:
        request["replace"] = True
    return Success(Remembered(request, title_derived))
