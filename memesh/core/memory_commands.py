"""The memory tool's input, checked field by field: it is a model's output, so the declared schema says what should
arrive, not what does. Each command becomes a plain value, or a refusal that says which field is wrong and why."""

from __future__ import annotations

from typing import Any, Final

from returns.result import Result, Success

from memesh.core.memory_paths import ROOT, File, Location, parse_path, refused, shown
from memesh.errors import MemeshError
from memesh.records import dataclass

MEMORY_TOOL_DEFINITION: Final = {"type": "memory_20250818", "name": "memory"}


@dataclass(frozen=True)
class View:
    where: Location
    view_range: tuple[int, int] | None


@dataclass(frozen=True)
class Create:
    where: Location
    file_text: str


@dataclass(frozen=True)
class StrReplace:
    where: Location
    old_str: str
    new_str: str


@dataclass(frozen=True)
class Insert:
    where: Location
    insert_line: int
    insert_text: str


@dataclass(frozen=True)
class Delete:
    where: Location


@dataclass(frozen=True)
class Rename:
    source: Location
    destination: Location


Command = View | Create | StrReplace | Insert | Delete | Rename

# Each command's fields: required, then optional. `command` itself is implied.
FIELDS: Final[dict[str, tuple[tuple[str, ...], tuple[str, ...]]]] = {
    "view": (("path",), ("view_range",)),
    "create": (("path", "file_text"), ()),
    "str_replace": (("path", "old_str"), ("new_str",)),
    "insert": (("path", "insert_line", "insert_text"), ()),
    "delete": (("path",), ()),
    "rename": (("old_path", "new_path"), ()),
}


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _string(fields: dict[str, Any], key: str, *, non_empty: bool = False) -> Result[str, MemeshError]:
    value = fields[key]
    if not isinstance(value, str) or (non_empty and not value):
        return refused(f"`{key}` must be a {'non-empty ' if non_empty else ''}string.")
    if "\x00" in value:
        return refused(f"`{key}` contains a NUL character and was refused.")
    return Success(value)


def _view_range(value: object) -> Result[tuple[int, int] | None, MemeshError]:
    if value is None:
        return Success(None)
    if isinstance(value, list | tuple) and len(value) == 2 and all(_is_int(v) for v in value):
        return Success((int(value[0]), int(value[1])))
    return refused("`view_range` must be two integers, [start, end] (end -1 reads to the last line).")


def parse(raw: object) -> Result[Command, MemeshError]:
    """One command from an untrusted tool input, or Failure(validation.bad-body) naming the field at fault."""
    if not isinstance(raw, dict) or not all(isinstance(key, str) for key in raw):
        return refused("the memory tool input must be a JSON object.")
    command = raw.get("command")
    if not isinstance(command, str) or command not in FIELDS:
        return refused(f"`command` must be one of {', '.join(FIELDS)}.")
    required, optional = FIELDS[command]
    # A null optional field means "not given", as an SDK that serialises unset fields as null sends it.
    fields = {key: value for key, value in raw.items() if key != "command" and not (key in optional and value is None)}
    unknown = sorted(set(fields) - set(required) - set(optional))
    if unknown:
        return refused(f"{command} takes {', '.join(required + optional)}; unknown field(s): {', '.join(unknown)}.")
    missing = [key for key in required if key not in fields]
    if missing:
        return refused(f"{command} needs {', '.join(f'`{key}`' for key in missing)}.")
    match command:
        case "rename":
            return parse_path(fields["old_path"], "old_path").bind(
                lambda source: parse_path(fields["new_path"], "new_path").map(
                    lambda destination: Rename(source, destination)
                )
            )
        case _:
            return parse_path(fields["path"]).bind(lambda where: _command(command, where, fields))


def _command(command: str, where: Location, fields: dict[str, Any]) -> Result[Command, MemeshError]:
    match command:
        case "view":
            return _view_range(fields.get("view_range")).map(lambda view_range: View(where, view_range))
        case "delete":
            return Success(Delete(where))
    # Everything else writes, and only a memory file can be written.
    if not isinstance(where, File):
        return refused(f"{shown(where)} is a directory; {command} needs a memory file, {ROOT}/<namespace>/<name>.md.")
    match command:
        case "create":
            return _string(fields, "file_text").map(lambda text: Create(where, text))
        case "str_replace":
            new = _string(fields, "new_str") if "new_str" in fields else Success("")
            return _string(fields, "old_str", non_empty=True).bind(
                lambda old: new.map(lambda new_text: StrReplace(where, old, new_text))
            )
    line = fields["insert_line"]
    if not _is_int(line):
        return refused("`insert_line` must be an integer (0 inserts before the first line).")
    return _string(fields, "insert_text").map(lambda text: Insert(where, line, text))
