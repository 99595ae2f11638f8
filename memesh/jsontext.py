"""JSON text for files a person may edit by hand: a number too large for a double survives a read and a write.

`json.loads` reads `1e400` as infinity, and `json.dumps` then either writes `Infinity` (not JSON) or refuses. A
NumberText is that infinity for every rule that compares it, and its own text when written back out.
"""

from __future__ import annotations

import json
import math
from typing import Any


class NumberText(float):
    """A JSON number no double can hold (`1e400`): ±inf when compared, its original text when encoded."""

    text: str

    def __new__(cls, text: str) -> NumberText:
        number = super().__new__(cls, text)
        number.text = text
        return number


def _number(text: str) -> float:
    value = float(text)
    return value if math.isfinite(value) else NumberText(text)


def loads(text: str) -> Any:
    """json.loads, except that a number out of a double's range comes back as a NumberText."""
    return json.loads(text, parse_float=_number)


def dumps(value: Any, **options: Any) -> str:
    """json.dumps that never writes NaN or Infinity: a NumberText is written as its own text, any other non-finite
    number as null (what JSON.stringify writes). Values without one are encoded by json.dumps as they are."""
    try:
        return json.dumps(value, allow_nan=False, **options)
    except ValueError:
        pass  # a non-finite number somewhere: swap each for a marker string, then splice its text in
    import uuid  # only for a non-finite number: uuid costs every reader of config.json (a hook) ~4 ms

    nonce = uuid.uuid4().hex
    literals: dict[str, str] = {}

    def swap(item: Any) -> Any:
        if isinstance(item, float) and not math.isfinite(item):
            marker = f"{nonce}:{len(literals)}"
            literals[json.dumps(marker)] = item.text if isinstance(item, NumberText) else "null"
            return marker
        if isinstance(item, dict):
            return {key: swap(inner) for key, inner in item.items()}
        if isinstance(item, list | tuple):
            return [swap(inner) for inner in item]
        return item

    text = json.dumps(swap(value), allow_nan=False, **options)
    for marker, literal in literals.items():
        text = text.replace(marker, literal)
    return text
