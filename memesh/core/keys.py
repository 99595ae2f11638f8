"""The rules for a key — a memory's name, a project identifier, a relation's target — as pure functions.

A key is how something is addressed, so it is cleaned the way every stored text is (controls out, one line, Unicode
NFC: `café` typed either way is one key), and one that holds a credential or is blank once cleaned is refused with
the field named, never silently rewritten into a different key.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

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


def checked_project(
    given: str | None, current: Callable[[], str], known: Callable[[], Iterable[str]] | None = None
) -> Result[str, str]:
    """The project a call is about: `given` under the key rules (refused when blank or holding a credential) and
    read as a label where it is one (see `project_for`; `known` lists the stored projects), else the working
    directory's project, cleaned as a label (it is derived from a folder's name, which the user did not type for
    this call: a credential in it is redacted the same way every time rather than refused)."""
    if given is not None:
        return checked_key("project", given).bind(lambda key: _label_or_id(key, current, known))
    return Success(clean_label(current()))


def _label_or_id(key: str, current: Callable[[], str], known: Callable[[], Iterable[str]] | None) -> Result[str, str]:
    if "~" in key:  # an id: neither the working folder nor the stored projects are asked
        return Success(key)
    return project_for(key, working_project(current), known() if known is not None else ())


def working_project(current: Callable[[], str]) -> str | None:
    """The working folder's project, cleaned as a label; None for a call with no working folder of its own."""
    from memesh.context import NotGiven

    try:
        return clean_label(current())
    except NotGiven:  # a call with no working folder of its own (a test's or a caller's bare context)
        return None


def project_for(key: str, here: str | None, known: Iterable[str]) -> Result[str, str]:
    """The project id `key` names. An id (`name~<hex>`) is itself. A bare label is the working folder's project when
    that project has the label (a person types the name they see, and a second project named by the label alone
    would split the project's memory silently), else the one stored project with that label; a label several stored
    projects share is refused with their ids. A name no project has as its label is kept as given: a plain name is a
    project scope of its own (the reference's rule), and a first write names a project nobody stored yet."""
    if "~" in key:
        return Success(key)
    from memesh.core.identity import project_label

    if here is not None and here != key and project_label(here) == key:
        return Success(here)
    named = sorted({project for project in known if "~" in project and project_label(project) == key})
    if len(named) > 1:
        return Failure(f'project: "{key}" is the label of {len(named)} projects ({", ".join(named)}); give the id')
    return Success(named[0] if named else key)
