"""`dataclass`, made when a class is first used instead of when its module is imported.

The standard decorator writes each generated method (`__init__`, `__repr__`, `__eq__`, `__hash__` and, for frozen
classes, `__setattr__`/`__delattr__`) as source text and compiles it: about 4 million instructions for a frozen class
on Python 3.11, as much as importing `json`. A short process (a CLI command, a cold hook) imports dozens of them and
uses a few, so this decorator records the arguments and leaves a stand-in `__init__`; the first instance made (of the
class or of a subclass) runs the standard decorator on the class, in place, and from then on the class is exactly
what `dataclasses.dataclass` makes of it: the same methods, `fields()`, `replace()`, `asdict()`, equality, hashing
and frozenness. Nothing can reach an instance's behaviour before it exists, so only the class itself, before its
first instance, differs: `dataclasses.fields(cls)` and `is_dataclass(cls)` need one made first (`made(cls)`), and a
field's `field(default_factory=…)` still shows as a class attribute until then. An instance made without `__init__`
(unpickled in a process that never made one) would find its class unmade: MeMesh sends none between processes.

The type checker sees the standard decorator itself (the same fields, signature and frozenness are checked), so the
deferral is a run-time matter only. ADR 0008 has the figures.

Making a class still cost ~4 million instructions, nearly all of it Python parsing and compiling the source text the
decorator writes for each method (`dataclasses._create_fn`). That text depends only on the class definition, so
tools/codegen.py records it ahead of time for every class made here: generated/dataclass_methods/<module>.py holds
each text (as the key) and the same text compiled once into the module's cached bytecode. While this module makes a
class it hands the decorator a `_create_fn` that builds the text exactly as the standard one does and, when the
recorded table has that very text, calls its code (with the same globals and locals `exec` would have used) instead
of compiling it again; any other text (a class changed since generated/ was written, a Python other than the one the
table was recorded on, a class made in a test) is compiled by the standard `_create_fn` itself. Either way the
function is made from the same source, so the class is the same; only the code's file name and line numbers differ.
"""

from __future__ import annotations

import builtins
import dataclasses
import sys
from _thread import allocate_lock
from types import FunctionType
from typing import TYPE_CHECKING, Any, TypeVar

_T = TypeVar("_T", bound=type)
__all__ = ["dataclass", "load_tables", "made"]
_ARGUMENTS = "__memesh_dataclass_arguments__"
_LOCK = allocate_lock()  # two threads making the first instance of a class at once make it once
# The standard decorator's own text-to-function step (absent from Pythons that build methods another way: there
# nothing is replaced and every class is made by the standard decorator unaided).
_STANDARD_CREATE_FN: Any = getattr(dataclasses, "_create_fn", None)
_TABLES = "memesh.generated.dataclass_methods"
_NO_TABLE: dict[str, Any] = {}
_tables: dict[str, dict[str, Any]] = {}  # defining module → {method text: its compiled `__create_fn__` code}
# tools/record_dataclasses.py sets a list here to collect (module, text) of every method made, table or not.
_recorded: list[tuple[str, str]] | None = None


def made(cls: _T) -> _T:
    """`cls` (and every deferred class it inherits from) turned into the standard dataclass, once."""
    if _ARGUMENTS not in cls.__dict__:
        return cls
    with _LOCK:
        for base in reversed(cls.__mro__):
            arguments = base.__dict__.get(_ARGUMENTS)
            if arguments is not None:
                _make(base, arguments)
    return cls


def _make(cls: type, arguments: dict[str, Any]) -> None:
    """The standard decorator on `cls`, without the class ever lacking a working `__init__`: another thread may look
    it up at any moment (the stand-in then waits for this one). The decorator never replaces a method the class has,
    so everything but `__init__` is made on the class itself, and `__init__` by the same decorator on a subclass with
    no fields of its own (the same fields, defaults and `__post_init__`), then put in place in one assignment."""
    documented = cls.__dict__.get("__doc__") is not None
    if not documented:  # the decorator would describe the stand-in's signature, to be replaced below: skip that
        cls.__doc__ = cls.__name__
    # The twin is thrown away once its `__init__` is taken: a docstring of its own spares describing its signature.
    namespace = {"__module__": cls.__module__, "__qualname__": cls.__qualname__, "__doc__": cls.__name__}
    standard = _STANDARD_CREATE_FN
    table = _table(cls.__module__) if standard is not None else _NO_TABLE
    if table or _recorded is not None:
        dataclasses._create_fn = _create_fn_from(table, cls.__module__, standard)  # type: ignore[attr-defined]
    try:
        dataclasses.dataclass(cls, **{**arguments, "init": False})
        twin = type(cls.__name__, (cls,), namespace)
        dataclasses.dataclass(twin, init=True, repr=False, eq=False, frozen=arguments.get("frozen", False))
    finally:
        if table or _recorded is not None:
            dataclasses._create_fn = standard  # type: ignore[attr-defined]
    init = twin.__dict__["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    cls.__init__ = init  # type: ignore[misc]
    cls.__dataclass_params__.init = True  # type: ignore[attr-defined]  # as the standard decorator records it
    if not documented:  # the decorator wrote the stand-in's signature into the docstring: write the real one
        import inspect

        cls.__doc__ = cls.__name__ + str(inspect.signature(cls)).replace(" -> None", "")
    delattr(cls, _ARGUMENTS)  # last: until here a thread that finds the stand-in waits for the lock


def load_tables() -> None:
    """Import the recorded method tables of every MeMesh module imported so far, so that a server's first request
    that makes one of their classes imports nothing (memesh.app.preload)."""
    for module in [name for name in sys.modules if name.startswith("memesh.") and not name.startswith(_TABLES)]:
        _table(module)


def _table(module: str) -> dict[str, Any]:
    """The recorded method texts of `module`'s classes and their code; empty when none were recorded for this
    Python (the table names the version whose `dataclasses` wrote the texts)."""
    table = _tables.get(module)
    if table is None:
        table = _NO_TABLE
        try:
            recorded = __import__(f"{_TABLES}.{module.removeprefix('memesh.').replace('.', '__')}", fromlist=["CODE"])
        except ImportError:
            pass
        except OSError:  # no descriptor to read it with (a server past its limit): the standard decorator, unaided
            return _NO_TABLE
        else:
            if sys.version_info[:2] == recorded.PYTHON:
                table = recorded.CODE
        _tables[module] = table
    return table


def method_text(name: str, args: list[str], body: list[str], local_names: list[str], return_annotation: str) -> str:
    """The source `dataclasses._create_fn` (Python 3.11) compiles for one method: the method inside a
    `__create_fn__` taking the names it closes over."""
    lines = "\n".join(f"  {line}" for line in body)
    text = f" def {name}({','.join(args)}){return_annotation}:\n{lines}"
    return f"def __create_fn__({', '.join(local_names)}):\n{text}\n return {name}"


def _create_fn_from(table: dict[str, Any], module: str, standard: Any) -> Any:
    """`dataclasses._create_fn` for making `module`'s classes: the recorded code where the text is in `table`."""

    def _create_fn(
        name: str,
        args: list[str],
        body: list[str],
        *,
        globals: dict[str, Any] | None = None,
        locals: dict[str, Any] | None = None,
        return_type: Any = dataclasses.MISSING,
    ) -> Any:
        bound = {} if locals is None else locals
        if return_type is dataclasses.MISSING:
            text = method_text(name, args, body, list(bound), "")
        else:
            bound = {**bound, "_return_type": return_type}
            text = method_text(name, args, body, list(bound), "->_return_type")
        if _recorded is not None:
            _recorded.append((module, text))
        code = table.get(text)
        if code is None:  # exactly the standard step, with the arguments it was given
            return standard(name, args, body, globals=globals, locals=locals, return_type=return_type)
        if globals is None:  # `exec(text, None, ns)` in dataclasses runs in dataclasses' own globals
            globals = vars(dataclasses)
        elif "__builtins__" not in globals:  # `exec` puts them there before it runs anything
            globals["__builtins__"] = vars(builtins)
        return FunctionType(code, globals)(**bound)

    return _create_fn


def _defer(cls: _T, arguments: dict[str, Any]) -> _T:
    if "__init__" in cls.__dict__:
        raise TypeError(f"{cls.__qualname__}: a deferred dataclass cannot define its own __init__")

    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        made(cls)
        cls.__init__(self, *args, **kwargs)  # type: ignore[misc]  # the class the stand-in belongs to, now made

    setattr(cls, _ARGUMENTS, arguments)
    cls.__init__ = __init__  # type: ignore[misc]
    return cls


if TYPE_CHECKING:
    from dataclasses import dataclass
else:

    def dataclass(cls=None, /, **arguments):
        """`dataclasses.dataclass(cls, **arguments)`, run when the first instance is made (see the module)."""
        if cls is None:
            return lambda cls: _defer(cls, arguments)
        return _defer(cls, arguments)
