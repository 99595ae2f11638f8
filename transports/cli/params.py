"""The flag shapes the `memesh` command declarations are written with (`json_: params.Switch = False`), read two ways.

Cyclopts evaluates a declaration's annotations when it builds that command, and only then is Cyclopts imported
(this module's `__getattr__` hands out `shapes`' Parameters). The front (front.py) reads the same annotations as
written, never evaluating them: a command it runs imports no Cyclopts. One declaration, two readers, so a flag is
never spelled twice.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from memesh.transports.cli.shapes import Int, Many, OptionalInt, Switch, Text


__all__ = ["SHAPES", "Int", "Many", "OptionalInt", "Switch", "Text", "whole_number"]

# Each shape by the name a declaration writes it with.
SHAPES = frozenset({"Int", "Many", "OptionalInt", "Switch", "Text"})


def whole_number(text: str) -> int:
    """An integer flag's value, written as one: `2.9` or `3e0` is refused, not rounded (as MCP and HTTP refuse it)."""
    text = text.strip()
    if not text.lstrip("+-").isdigit():
        raise ValueError(f"expected a whole number, got {text!r}")
    return int(text)


def __getattr__(name: str) -> object:
    if name in SHAPES:
        from memesh.transports.cli import shapes

        return getattr(shapes, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
