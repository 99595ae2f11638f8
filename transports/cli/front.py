"""The front of the `memesh` command line: a command line it can read whole runs without Cyclopts being imported.

It reads only commands declared without Cyclopts (`commands.WITHOUT_CYCLOPTS`), from their declarations as written:
the parameters' names, kinds and defaults from the function itself, each flag's shape from its annotation's text
(`params.Switch`, `str | None`, …), never evaluated. Flags are named as Cyclopts names them (`json_` → `--json`,
`include_archived` → `--include-archived`). It reads the plain forms only: a flag it does not know, a value that
starts with a hyphen, `--`, a flag given twice, a missing or unreadable value, a missing required flag or a stray
word all make it step aside (`read` returns None), and Cyclopts reads the line instead, with its own words for what
is wrong. What it does read, it binds exactly as Cyclopts binds it (tests/transports/cli/test_front.py compares the
two on generated command lines), then calls the same declaration.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from importlib import import_module
from typing import Any

from memesh.transports.cli import params
from memesh.transports.cli.commands import DECLARED, WITHOUT_CYCLOPTS

_VARARGS = 0x04  # inspect.CO_VARARGS, without importing inspect (it costs more than this whole module)

# How each annotation, as written, takes its value; any other annotation keeps its command off the front.
_SWITCH, _ONE, _INT, _MANY = "switch", "one", "int", "many"
_SHAPES = {
    "params.Switch": _SWITCH,
    "str": _ONE,
    "str | None": _ONE,
    "params.Text": _ONE,
    "params.Int": _INT,
    "params.OptionalInt": _INT,
    "params.Many": _MANY,
}


class Command:
    """A declaration and the arguments a command line gave it. (Plain classes here: a dataclass costs more to
    create than the rest of this module.)"""

    __slots__ = ("args", "function", "kwargs")

    def __init__(self, function: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
        self.function = function
        self.args = args
        self.kwargs = kwargs

    def run(self) -> int:
        from memesh.transports.cli.exits import OK

        result = self.function(*self.args, **self.kwargs)
        return result if isinstance(result, int) else OK


class _Signature:
    __slots__ = ("defaults", "flags", "positional", "required", "varargs")

    def __init__(
        self,
        *,
        positional: tuple[tuple[str, str], ...],  # positional-only parameters: name, shape
        defaults: tuple[Any, ...],  # of the last positional-only parameters
        varargs: str | None,  # the shape of *args, when there is one
        flags: dict[str, tuple[str, str]],  # `--flag` → keyword-only parameter, shape
        required: frozenset[str],  # keyword-only parameters without a default
    ) -> None:
        self.positional = positional
        self.defaults = defaults
        self.varargs = varargs
        self.flags = flags
        self.required = required


def _flag(name: str) -> str:
    """The flag Cyclopts names a parameter with (its default name transform, for a snake_case name)."""
    return "--" + name.lower().replace("_", "-").strip("-")


def _signature(function: Callable[..., Any]) -> _Signature | None:
    """What the front needs of a declaration; None when it has a parameter the front does not read."""
    code = function.__code__
    names = code.co_varnames
    annotations: dict[str, Any] = function.__annotations__
    shapes = {name: _SHAPES.get(annotation) for name, annotation in annotations.items() if name != "return"}
    if None in shapes.values() or code.co_argcount != code.co_posonlyargcount:  # an unknown shape, or `a` (not `a, /`)
        return None
    positional = tuple((name, shapes[name] or "") for name in names[: code.co_posonlyargcount])
    if any(shape != _ONE for _, shape in positional):
        return None
    keyword = names[code.co_argcount : code.co_argcount + code.co_kwonlyargcount]
    varargs = None
    if code.co_flags & _VARARGS:
        varargs = shapes.get(names[code.co_argcount + code.co_kwonlyargcount])
        if varargs != _ONE:
            return None
    kwdefaults = function.__kwdefaults__ or {}
    return _Signature(
        positional=positional,
        defaults=function.__defaults__ or (),
        varargs=varargs,
        flags={_flag(name): (name, shapes[name] or "") for name in keyword},
        required=frozenset(name for name in keyword if name not in kwdefaults),
    )


def read(argv: Sequence[str]) -> Command | None:
    """The command `argv` runs with its arguments bound; None when the front leaves the line to Cyclopts."""
    if not argv or argv[0] not in WITHOUT_CYCLOPTS:
        return None
    module, _, attribute = DECLARED[argv[0]].partition(":")
    function = getattr(import_module(module), attribute)
    signature = _signature(function)
    if signature is None:
        return None
    return _bind(function, signature, argv[1:])


def _bind(function: Callable[..., Any], signature: _Signature, tokens: Sequence[str]) -> Command | None:
    words: list[str] = []
    given: dict[str, Any] = {}
    index = 0
    while index < len(tokens):
        token = tokens[index]
        index += 1
        if not token.startswith("-"):
            words.append(token)
            continue
        flag, equals, inline = token.partition("=")
        known = signature.flags.get(flag)
        if known is None or known[0] in given:
            return None
        name, shape = known
        if shape == _SWITCH:
            if equals:
                return None
            given[name] = True
            continue
        if shape == _MANY:
            values = []
            while index < len(tokens) and not tokens[index].startswith("-"):
                values.append(tokens[index])
                index += 1
            if equals or not values:
                return None
            given[name] = values
            continue
        if equals:
            value = inline
        elif index < len(tokens):
            value = tokens[index]
            index += 1
        else:
            return None
        if not value or value.startswith("-"):
            return None
        if shape == _INT:
            try:
                given[name] = params.whole_number(value)
            except ValueError:
                return None
        else:
            given[name] = value
    if not signature.required <= given.keys():
        return None
    if signature.varargs is not None:
        return Command(function, tuple(words), given)
    if len(words) > len(signature.positional):
        return None
    if len(words) < len(signature.positional) - len(signature.defaults):
        return None
    return Command(function, tuple(words), given)
