"""The memory tool's path space: `/memories`, its three namespaces, and one `<name>.md` file per memory.

Nothing here touches a filesystem, so traversal cannot escape anywhere; it can still resolve to a different namespace
or memory than the one named, which would be a silent wrong write. So every path is refused unless it reads exactly
one way. A refusal names the path only when it lies inside `/memories`: a path outside it is never repeated back.
"""

from __future__ import annotations

import re
from typing import Final

from returns.result import Failure, Result, Success

from memesh.core.clean import clean_name, redact, strip_controls
from memesh.errors import MemeshError
from memesh.model import NAMESPACES
from memesh.records import dataclass
from memesh.schema import facts

ROOT: Final = "/memories"
SUFFIX: Final = ".md"
NAME_MAX: Final[int] = facts.field("tools/remember.input", "name")["maxLength"]  # a name as remember bounds it

# Exactly the three characters a name is written with in a file name; `%` first, so decoding is its inverse.
_ENCODED: Final = (("%", "%25"), ("/", "%2F"), ("\\", "%5C"))
_ESCAPE = re.compile("%(25|2F|5C)", re.IGNORECASE)
_ANY_ESCAPE = re.compile("%([0-9A-Fa-f]{2})")


@dataclass(frozen=True)
class Root:
    """`/memories` itself."""


@dataclass(frozen=True)
class Folder:
    """`/memories/<namespace>`."""

    namespace: str


@dataclass(frozen=True)
class File:
    """`/memories/<namespace>/<name>.md`: one memory. `path` is the canonical spelling, safe to show back."""

    namespace: str
    name: str

    @property
    def path(self) -> str:
        return file_path(self.namespace, self.name)


Location = Root | Folder | File


def encode_name(name: str) -> str:
    """A memory name as a file name: `/`, `\\` and `%` percent-encoded and nothing else (`Project Apollo.md`)."""
    for char, escaped in _ENCODED:
        name = name.replace(char, escaped)
    return name


def decode_name(segment: str) -> str:
    return _ESCAPE.sub(lambda m: {"25": "%", "2F": "/", "5C": "\\"}[m.group(1).upper()], segment)


def file_path(namespace: str, name: str) -> str:
    return f"{ROOT}/{namespace}/{encode_name(name)}{SUFFIX}"


def shown(where: Location) -> str:
    """The canonical spelling of a location, safe to show back."""
    match where:
        case File():
            return where.path
        case Folder(namespace):
            return f"{ROOT}/{namespace}"
    return ROOT


def refused(message: str) -> Failure[MemeshError]:
    return Failure(MemeshError.bad_body(f"Error: {message}"))


def _percent_decoded(segment: str) -> str:
    """Every %XX sequence decoded (as a lenient consumer would), to spot a traversal written in escapes."""
    return _ANY_ESCAPE.sub(lambda m: chr(int(m.group(1), 16)), segment)


def parse_path(raw: object, field: str = "path") -> Result[Location, MemeshError]:
    """Where `raw` points, or Failure(validation.bad-body) with the refusal's reason."""
    if not isinstance(raw, str) or not raw:
        return refused(f"`{field}` must be a non-empty string.")
    if "\x00" in raw:
        return refused(f"`{field}` contains a NUL character and was refused.")
    # `/memories` exactly or `/memories/…`: `/memories-of-you/…` passes a plain prefix check and must not.
    if raw != ROOT and not raw.startswith(f"{ROOT}/"):
        return refused(f"`{field}` must be {ROOT} or a path under {ROOT}/; this path is outside it and was refused.")
    rest = raw[len(ROOT) + 1 :]
    if rest == "":
        return Success(Root())
    if "\\" in raw:
        return refused(f"the path {raw} contains a backslash and was refused (a `\\` in a name is written %5C).")
    segments = rest.split("/")
    for segment in segments:
        if segment in ("", ".", ".."):
            return refused(f"the path {raw} has an empty, `.` or `..` segment and was refused.")
        if "%2e%2e" in segment.lower() or _percent_decoded(segment) in (".", ".."):
            return refused(f"the path {raw} holds an encoded traversal (`%2e%2e`) and was refused.")
    if len(segments) > 2:
        return refused(f"{ROOT} is exactly two levels deep, {ROOT}/<namespace>/<name>{SUFFIX}; {raw} is deeper.")
    namespace = segments[0]
    if namespace not in NAMESPACES:
        return refused(f'"{namespace}" is not a namespace: use one of {", ".join(NAMESPACES)}.')
    if len(segments) == 1:
        return Success(Folder(namespace))
    return _file(raw, namespace, segments[1])


def _file(raw: str, namespace: str, segment: str) -> Result[Location, MemeshError]:
    if not segment.endswith(SUFFIX):
        return refused(f"a memory is a file {ROOT}/<namespace>/<name>{SUFFIX}; {raw} does not end in {SUFFIX}.")
    encoded = segment[: -len(SUFFIX)]
    name = decode_name(encoded)
    if not name:
        return refused(f"the path {raw} names no memory (the file name is empty).")
    # One spelling per memory: a bare `%`, or `%2f` for `%2F`, would make two paths name one memory.
    if encode_name(name) != encoded:
        return refused(
            f"in a memory file name `%` is written %25, `/` %2F and `\\` %5C, and nothing else is encoded; "
            f"{raw} has a `%` that is not one of these."
        )
    if len(name) > NAME_MAX:
        return refused(f"a memory name is at most {NAME_MAX} characters; this one has {len(name)}.")
    if clean_name(strip_controls(name)) != name:
        return refused(f"the path {raw} has control characters or surrounding spaces in its name and was refused.")
    if redact(name) != name:
        return refused("the memory name holds something shaped like a credential; choose a name without it.")
    return Success(File(namespace, name))
