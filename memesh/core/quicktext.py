"""Free text given together with a title or observations (the CLI's `memesh remember "<text>" --obs …`).

The text is not replaced by what comes with it: it contributes its own observations (split exactly as a note is),
the explicit observations follow them, and an explicit title wins over the one the text derives. The result is a
structured remember request, held to the same 100-observation cap as every other path — counted over the final
array, the text's observations plus the explicit ones.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from returns.result import Failure, Result, Success

from memesh.core.notes import NOTE_TYPE, derive_note, note_name, text_observations
from memesh.core.remembering import MAX_OBSERVATIONS
from memesh.errors import MemeshError


@dataclass(frozen=True)
class TextRequest:
    """The structured form of text plus flags; None fields are left out of the request."""

    name: str | None
    type: str | None
    title: str | None
    observations: list[str]
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
