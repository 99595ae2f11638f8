"""Owner settings: what a valid value is, and what is in effect with the environment, in the spec's words."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memesh.core import settings

ROOT = Path(__file__).resolve().parents[2]


def test_briefing_defaults_to_minimal() -> None:
    assert settings.briefing({}, None).row == "minimal (default)"


def test_briefing_from_config_and_env_says_its_source() -> None:
    assert settings.briefing({"briefing": "full"}, None).row == "full (config.json)"
    assert settings.briefing({"briefing": "full"}, "standard").row == "standard (env MEMESH_BRIEFING)"


def test_an_invalid_briefing_falls_back_to_minimal_and_is_reported() -> None:
    effective = settings.briefing({"briefing": 7}, None)
    assert effective.value == "minimal" and "invalid: 7" in effective.row
    assert "env MEMESH_BRIEFING is invalid" in settings.briefing({}, "loud").row


@pytest.mark.parametrize(
    ("stored", "env", "value", "row"),
    [
        ({}, None, 10, "10 (default)"),
        ({"sessionLimit": 20}, None, 20, "20"),
        ({"sessionLimit": 500}, None, 100, "500 (above 100; the SessionStart hook uses 100)"),
        ({"sessionLimit": 0}, None, 10, "0 (below 1; the SessionStart hook uses the default 10)"),
        ({}, "30", 30, "30 (env MEMESH_SESSION_LIMIT)"),
        ({}, "1000", 100, "1000 from MEMESH_SESSION_LIMIT (above 100; the SessionStart hook uses 100)"),
        (
            {"sessionLimit": 25},
            "abc",
            25,
            "abc from MEMESH_SESSION_LIMIT (not a whole number; the SessionStart hook uses 25)",
        ),
        ({"sessionLimit": 25}, "0", 25, "0 from MEMESH_SESSION_LIMIT (below 1; the SessionStart hook uses 25)"),
        (
            {},
            "abc",
            10,
            "abc from MEMESH_SESSION_LIMIT (not a whole number; the SessionStart hook uses the default 10)",
        ),
        (
            {"sessionLimit": 0},
            "abc",
            10,
            "abc from MEMESH_SESSION_LIMIT (not a whole number), "
            "then 0 (below 1; the SessionStart hook uses the default 10)",
        ),
        (
            {"sessionLimit": 0},
            "500",
            100,
            "500 from MEMESH_SESSION_LIMIT (above 100), then 0 (below 1; the SessionStart hook uses 100)",
        ),
        (
            {"sessionLimit": 1000},
            "500",
            100,
            "500 from MEMESH_SESSION_LIMIT (above 100), then 1000 (above 100; the SessionStart hook uses 100)",
        ),
        ({"sessionLimit": 20}, "500", 100, "500 from MEMESH_SESSION_LIMIT (above 100; the SessionStart hook uses 100)"),
    ],
)
def test_session_limit_in_effect_names_the_adjustment(
    stored: dict[str, int], env: str | None, value: int, row: str
) -> None:
    effective = settings.session_limit(stored, env)
    assert (effective.value, effective.row) == (value, row)


def test_readable_returns_stored_values_unranged_and_briefing_of_any_type() -> None:
    stored = {"sessionLimit": 500, "briefing": ["odd"], "autoCapture": "yes", "unknown": 1, "autoUpdate": "minor"}
    assert settings.readable(stored) == {"sessionLimit": 500, "briefing": ["odd"], "autoUpdate": "minor"}


def test_cli_text_becomes_the_json_type_the_schema_gives_the_key() -> None:
    assert settings.parse_cli_value("autoCapture", "0") == (False, None)
    assert settings.parse_cli_value("sessionLimit", " 42 ") == (42, None)
    assert settings.parse_cli_value("sessionLimit", "101") == (101, None)  # in range or not: the gate's call
    assert settings.parse_cli_value("briefing", "max") == ("max", None)
    assert (
        settings.parse_cli_value("sessionLimit", "ten")[1]
        == 'sessionLimit: needs a whole number of 1 to 100, not "ten"'
    )
    assert settings.parse_cli_value("autoCapture", "maybe")[1] == "autoCapture: must be one of: true, false, 1, 0"


def test_the_setting_keys_and_values_are_the_config_schema_s() -> None:
    schema = json.loads((ROOT / "schemas" / "http" / "config_update.input.json").read_text())
    assert tuple(sorted(schema["properties"])) == settings.KEYS
    assert tuple(schema["properties"]["briefing"]["enum"]) == settings.BRIEFING_LEVELS
    assert (settings.SESSION_LIMIT_MIN, settings.SESSION_LIMIT_MAX) == (1, 100)


@pytest.mark.parametrize(
    ("stored", "named"),
    [(0, "0 in config.json (below 1"), (1000, "1000 in config.json (above 100"), ("x", '"x" in config.json (not a')],
)
def test_with_the_env_above_100_a_stored_value_out_of_range_is_reported_as_well(stored: object, named: str) -> None:
    effective = settings.session_limit({"sessionLimit": stored}, "500")
    assert effective.value == 100
    # One entry per adjusted source, as the spec asks, each ending on the value in effect.
    assert effective.adjusted[0] == "500 from MEMESH_SESSION_LIMIT (above 100; the SessionStart hook uses 100)"
    assert effective.adjusted[1].startswith(named)
    assert effective.adjusted[1].endswith("; the SessionStart hook uses 100)")
    assert len(effective.adjusted) == 2
