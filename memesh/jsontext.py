"""JSON text for files a person may edit by hand: a number too large for a double survives a read and a write.

`json.loads` reads `1e400` as infinity, and `json.dumps` then either writes `Infinity` (not JSON) or refuses. A
NumberText is that infinity for every rule that compares it, and its own text when written back out.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from json.encoder import encode_basestring  # the C escaper json itself uses
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


def indented(value: Any) -> Iterator[str]:
    """The text of `json.dumps(value, indent=2, ensure_ascii=False)`, in pieces: each top-level entry, and each item
    of a top-level entry's list (a bundle's memories), so a large value is written as it is encoded.

    Made by one recursive function over the value, with the json module's own C string escaper: the same text as
    json's pure-Python encoder (which an indent always selects) at about two thirds of its cost, in tens of thousands
    of pieces instead of its hundreds of thousands. Like json.dumps: NaN and infinities as NaN and Infinity, a
    non-string key as json converts it, TypeError for a value JSON has no form for.
    """
    if not isinstance(value, dict) or not value:
        pieces: list[str] = []
        _encode(value, "", pieces)
        yield "".join(pieces)
        return
    separator = "{\n  "
    for key, item in value.items():
        head = f"{separator}{_key(key)}: "
        separator = ",\n  "
        if isinstance(item, list | tuple) and item:
            yield f"{head}["
            between = "\n    "
            for element in item:
                pieces = [between]
                _encode(element, "    ", pieces)
                yield "".join(pieces)
                between = ",\n    "
            yield "\n  ]"
        else:
            pieces = [head]
            _encode(item, "  ", pieces)
            yield "".join(pieces)
    yield "\n}"


def _float(number: float) -> str:
    if math.isnan(number):
        return "NaN"
    if number == math.inf:
        return "Infinity"
    if number == -math.inf:
        return "-Infinity"
    return float.__repr__(number)


def _key(key: object) -> str:
    if isinstance(key, str):
        return encode_basestring(key)
    if key is True:
        return '"true"'
    if key is False:
        return '"false"'
    if key is None:
        return '"null"'
    if isinstance(key, float):
        return encode_basestring(_float(key))
    if isinstance(key, int):
        return encode_basestring(int.__repr__(key))
    raise TypeError(f"keys must be str, int, float, bool or None, not {type(key).__name__}")


def _encode(value: Any, margin: str, pieces: list[str]) -> None:
    """`value` at the indentation `margin`, appended to `pieces`."""
    if isinstance(value, str):
        pieces.append(encode_basestring(value))
    elif value is None:
        pieces.append("null")
    elif value is True:
        pieces.append("true")
    elif value is False:
        pieces.append("false")
    elif isinstance(value, int):
        pieces.append(int.__repr__(value))
    elif isinstance(value, float):
        pieces.append(_float(value))
    elif isinstance(value, dict):
        if not value:
            pieces.append("{}")
            return
        inner = margin + "  "
        separator = "{\n" + inner
        for key, item in value.items():
            pieces.append(f"{separator}{_key(key)}: ")
            _encode(item, inner, pieces)
            separator = ",\n" + inner
        pieces.append(f"\n{margin}}}")
    elif isinstance(value, list | tuple):
        if not value:
            pieces.append("[]")
            return
        inner = margin + "  "
        separator = "[\n" + inner
        for item in value:
            pieces.append(separator)
            _encode(item, inner, pieces)
            separator = ",\n" + inner
        pieces.append(f"\n{margin}]")
    else:
        raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")
