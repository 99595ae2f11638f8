"""Text SQLite can store: lone UTF-16 surrogates, which JSON can carry, become U+FFFD.

Apart from `clean` (whose secret patterns take a while to compile) because every call passes through it, recall too.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from memesh.errors import MemeshError

if TYPE_CHECKING:
    from returns.result import Result

_SURROGATE = re.compile("[\ud800-\udfff]")


def to_storable(text: str) -> str:
    """Lone UTF-16 surrogates (which JSON can carry and SQLite cannot store) become U+FFFD."""
    if text.isascii():  # no surrogate can be in it, and most text (every key, most values) is ASCII
        return text
    return _SURROGATE.sub("\ufffd", text)


def map_strings(value: Any, change: Callable[[str], str]) -> Any:
    """A JSON value with `change` applied to every string in it (object keys included), at any depth."""
    if isinstance(value, str):
        return change(value)
    if isinstance(value, list):
        return [map_strings(item, change) for item in value]
    if isinstance(value, dict):
        return {map_strings(key, change): map_strings(item, change) for key, item in value.items()}
    return value


def storable(value: Any) -> Any:
    """A decoded request with `to_storable` applied to every string in it (keys included), at any depth."""
    return map_strings(value, to_storable)


MAX_DEPTH = 100  # far deeper than any tool input or bundle nests; deeper would exhaust Python's recursion


def nested_deeper_than(value: Any, limit: int = MAX_DEPTH) -> bool:
    """Whether arrays and objects inside `value` nest more than `limit` levels (walked without recursion)."""
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict | list):
            if depth >= limit:
                return True
            children = item.values() if isinstance(item, dict) else item
            stack.extend((child, depth + 1) for child in children if isinstance(child, dict | list))
    return False


TOO_DEEP = f"the request nests arrays and objects more than {MAX_DEPTH} levels deep"


def storable_input(value: Any) -> Result[Any, MemeshError]:
    """The gate every decoded input passes before validation: refused (validation.bad-body) when it nests deeper
    than MAX_DEPTH, else `storable(value)`."""
    # Here, not at the top: clean and the store import this module, and a process that only cleans or displays
    # text need not load `returns` (~50 ms of typing, inspect and ast) for it.
    from returns.result import Failure, Success

    if nested_deeper_than(value):
        return Failure(MemeshError.bad_body(TOO_DEEP))
    return Success(storable(value))
