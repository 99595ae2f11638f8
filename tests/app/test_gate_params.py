"""Query parameters through the gate against their schema files: typed, range-checked, refused as bad-param."""

from __future__ import annotations

import pytest

from memesh.app.gate import admit_params


@pytest.mark.parametrize("window", ["0", "366", "-3", "abc", "1.5", "9" * 30, ""])
def test_an_out_of_range_or_non_integer_window_is_a_bad_param(window: str) -> None:
    error = admit_params("http/analytics_pm.input", {"window": [window]}).failure()
    assert error.code == "validation.bad-param"
    assert error.data == {"param": "window"}
    assert error.message.startswith("window: ")


def test_a_window_in_range_becomes_an_integer() -> None:
    assert admit_params("http/analytics_pm.input", {"window": ["7"]}).unwrap() == {"window": 7}


def test_a_parameter_given_twice_is_refused() -> None:
    error = admit_params("http/analytics_pm.input", {"window": ["7", "8"]}).failure()
    assert (error.code, error.data) == ("validation.bad-param", {"param": "window"})


def test_an_unknown_parameter_is_refused_by_name() -> None:
    error = admit_params("http/analytics_pm.input", {"windw": ["7"]}).failure()
    assert (error.code, error.data) == ("validation.bad-param", {"param": "windw"})


def test_arrays_take_comma_separated_or_repeated_values() -> None:
    schema = "tools/user_patterns.input"
    expected = {"categories": ["workflow", "strengths"]}
    assert admit_params(schema, {"categories": ["workflow,strengths"]}).unwrap() == expected
    assert admit_params(schema, {"categories": ["workflow", "strengths"]}).unwrap() == expected


@pytest.mark.parametrize(("text", "value"), [("1", True), ("true", True), ("0", False), ("FALSE", False)])
def test_booleans_read_one_zero_true_and_false(text: str, value: bool) -> None:
    assert admit_params("http/update_status.input", {"cached": [text]}).unwrap() == {"cached": value}
