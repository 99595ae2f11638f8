"""JSON text: for hand-edited files a number no double can hold is read and written back as it was written; for
exports, json.dumps(indent=2)'s text written in pieces."""

from __future__ import annotations

import json
import math
import random
from typing import Any

import pytest

from memesh import jsontext


def test_a_number_too_large_for_a_double_is_infinite_to_compare_and_written_back_as_its_text() -> None:
    value = jsontext.loads('{"n": -1.5E+400, "m": 2.5}')
    assert value["n"] == -math.inf and value["m"] == 2.5
    assert jsontext.dumps(value) == '{"n": -1.5E+400, "m": 2.5}'


def test_any_other_non_finite_number_is_written_as_null_never_as_infinity() -> None:
    assert jsontext.dumps([math.inf, math.nan, {"k": (1, -math.inf)}]) == '[null, null, {"k": [1, null]}]'


def test_values_without_a_non_finite_number_are_encoded_as_json_dumps_does() -> None:
    value = {"a": ["é", 1.0, None], "b": {"c": True}}
    assert jsontext.dumps(value, ensure_ascii=False) == json.dumps(value, ensure_ascii=False)


CHARACTERS = ("a", "é", '"', "\\", "\n", "\t", "\x00", "\x7f", "\x9b", "\u202e", "名", "😀", " ")


def _value(chooser: random.Random, depth: int) -> Any:
    kinds = ["str", "int", "float", "none", "bool"] + (["list", "dict", "tuple"] * 2 if depth < 4 else [])
    kind = chooser.choice(kinds)
    if kind == "str":
        return "".join(chooser.choice(CHARACTERS) for _ in range(chooser.randint(0, 6)))
    if kind == "int":
        return chooser.choice([0, -1, 7, 2**70, -(2**64)])
    if kind == "float":
        return chooser.choice([0.0, -0.0, 1.5, 1e300, 1e-300, 0.1, math.inf, -math.inf, math.nan])
    if kind == "none":
        return None
    if kind == "bool":
        return chooser.random() < 0.5
    items = [_value(chooser, depth + 1) for _ in range(chooser.randint(0, 4))]
    if kind == "list":
        return items
    if kind == "tuple":
        return tuple(items)
    keys = [chooser.choice(["k", "é", 'q"', "\n", 3, 2.5, True, False, None]) for _ in items]
    return dict(zip(keys, items, strict=True))


def test_indented_writes_the_text_json_dumps_writes_with_indent_2() -> None:
    chooser = random.Random(22)
    for _ in range(3000):
        value = _value(chooser, 0)
        assert "".join(jsontext.indented(value)) == json.dumps(value, indent=2, ensure_ascii=False), value


def test_indented_writes_a_bundle_a_memory_at_a_time() -> None:
    bundle = {"version": "3.1.0", "entities": [{"name": f"m{i}", "observations": ["x"]} for i in range(5)], "n": 5}
    pieces = list(jsontext.indented(bundle))
    assert "".join(pieces) == json.dumps(bundle, indent=2, ensure_ascii=False)
    assert len(pieces) == 1 + 1 + 5 + 1 + 1 + 1  # version, "entities": [, five memories, ], n, }


def test_indented_refuses_what_json_has_no_form_for() -> None:
    with pytest.raises(TypeError):
        "".join(jsontext.indented({"a": {1, 2}}))
    with pytest.raises(TypeError):
        "".join(jsontext.indented({("a",): 1}))
