"""The rules for a key — a memory's name, a project identifier, a relation's target — as pure functions.

A key is how something is addressed, so it is cleaned the way every stored text is (controls out, one line, Unicode
NFC: `café` typed either way is one key), and one that holds a credential or is blank once cleaned is refused with
the field named, never silently rewritten into a different key.
"""

from __future__ import annotations

from collections.abc import Callable

from returns.result import Failure, Result, Success

from memesh.core.clean import clean_key, clean_label, holds_secret

BLANK = "Name must not be blank after sanitization"
HOLDS_SECRET = "holds something shaped like a credential; a name is stored and shown as given, so choose one without it"


def key_problem(cleaned: str) -> str | None:
    """Why an already cleaned key cannot be used, or None."""
    if not cleaned:
        return BLANK
    if holds_secret(cleaned):
        return HOLDS_SECRET
    return None


def checked_key(field: str, raw: str) -> Result[str, str]:
    """`raw` as stored and compared, or Failure(`"<field>: <why not>"`)."""
    cleaned = clean_key(raw)
    problem = key_problem(cleaned)
    return Success(cleaned) if problem is None else Failure(f"{field}: {problem}")


def checked_project(given: str | None, current: Callable[[], str]) -> Result[str, str]:
    """The project a call is about: `given` under the key rules (refused when blank or holding a credential), else
    the working directory's project, cleaned as a label (it is derived from a folder's name, which the user did not
    type for this call: a credential in it is redacted the same way every time rather than refused)."""
    if given is not None:
        return checked_key("project", given).map(lambda key: _as_current(key, current))
    return Success(clean_label(current()))


def _as_current(key: str, current: Callable[[], str]) -> str:
    """The working directory's project id for its bare label (`myapp` typed in the folder whose project is
    `myapp~<hex>`): a person types the name they see, and a second project named by the label alone would split the
    project's memory silently. Any other key is kept as given."""
    if "~" in key:
        return key
    from memesh.context import NotGiven
    from memesh.core.identity import project_label

    try:
        here = clean_label(current())
    except NotGiven:  # a call with no working folder of its own (a test's or a caller's bare context): as given
        return key
    return here if here != key and project_label(here) == key else key
