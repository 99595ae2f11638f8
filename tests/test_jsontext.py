"""JSON text for hand-edited files: a number no double can hold is read and written back as it was written."""

from __future__ import annotations

import json
import math

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
