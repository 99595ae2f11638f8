"""Query parameters through their schema files: typed, range-checked, and refused as validation.bad-param."""

from __future__ import annotations

import pytest

from memesh.schema import params


@pytest.mark.parametrize("window", ["0", "366", "-3", "abc", "1.5", "9" * 30, ""])
def test_an_out_of_range_or_non_integer_window_is_a_bad_param(window: str) -> None:
    error = params.parse("http/analytics-pm.query", {"window": [window]}).failure()
    assert error.code == "validation.bad-param"
    assert error.data == {"param": "window"}
    assert error.message.startswith("window: ")


def test_a_window_in_range_becomes_an_integer() -> None:
    assert params.parse("http/analytics-pm.query", {"window": ["7"]}).unwrap() == {"window": 7}


def test_a_parameter_given_twice_is_refused() -> None:
    error = params.parse("http/analytics-pm.query", {"window": ["7", "8"]}).failure()
    assert (error.code, error.data) == ("validation.bad-param", {"param": "window"})


def test_an_unknown_parameter_is_refused_by_name() -> None:
    error = params.parse("http/analytics-pm.query", {"windw": ["7"]}).failure()
    assert (error.code, error.data) == ("validation.bad-param", {"param": "windw"})


def test_arrays_take_comma_separated_or_repeated_values() -> None:
    schema = "tools/user_patterns.input"
    expected = {"categories": ["workflow", "strengths"]}
    assert params.parse(schema, {"categories": ["workflow,strengths"]}).unwrap() == expected
    assert params.parse(schema, {"categories": ["workflow", "strengths"]}).unwrap() == expected


@pytest.mark.parametrize(("text", "value"), [("1", True), ("true", True), ("0", False), ("FALSE", False)])
def test_booleans_read_one_zero_true_and_false(text: str, value: bool) -> None:
    assert params.parse("http/update-status.query", {"cached": [text]}).unwrap() == {"cached": value}
