"""Text SQLite can store: lone UTF-16 surrogates, which JSON can carry, become U+FFFD.

Apart from `clean` (whose secret patterns take a while to compile) because every call passes through it, recall too.
"""

from __future__ import annotations

import re
from typing import Any

_SURROGATE = re.compile("[\ud800-\udfff]")


def to_storable(text: str) -> str:
    """Lone UTF-16 surrogates (which JSON can carry and SQLite cannot store) become U+FFFD."""
    return _SURROGATE.sub("\ufffd", text)


def storable(value: Any) -> Any:
    """A decoded request with `to_storable` applied to every string in it (keys included), at any depth."""
    if isinstance(value, str):
        return to_storable(value)
    if isinstance(value, list):
        return [storable(item) for item in value]
    if isinstance(value, dict):
        return {storable(key): storable(item) for key, item in value.items()}
    return value


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
