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
"""

from __future__ import annotations

import dataclasses
from _thread import allocate_lock
from typing import TYPE_CHECKING, Any, TypeVar

_T = TypeVar("_T", bound=type)
__all__ = ["dataclass", "made"]
_ARGUMENTS = "__memesh_dataclass_arguments__"
_LOCK = allocate_lock()  # two threads making the first instance of a class at once make it once


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
    dataclasses.dataclass(cls, **{**arguments, "init": False})
    twin = type(cls.__name__, (cls,), {"__module__": cls.__module__, "__qualname__": cls.__qualname__})
    dataclasses.dataclass(twin, init=True, repr=False, eq=False, frozen=arguments.get("frozen", False))
    init = twin.__dict__["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    cls.__init__ = init  # type: ignore[misc]
    cls.__dataclass_params__.init = True  # type: ignore[attr-defined]  # as the standard decorator records it
    if not documented:  # the decorator wrote the stand-in's signature into the docstring: write the real one
        import inspect

        cls.__doc__ = cls.__name__ + str(inspect.signature(cls)).replace(" -> None", "")
    delattr(cls, _ARGUMENTS)  # last: until here a thread that finds the stand-in waits for the lock


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
