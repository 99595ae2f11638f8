"""Update rules with plain values: versions, freshness, the status shape, and the one notice per session."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from memesh.core import update as rules
from memesh.core.update import CheckRecord

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)


def test_versions_compare_by_release_numbers_not_text() -> None:
    assert rules.is_newer("0.10.0", "0.9.1")
    assert not rules.is_newer("1.0", "1.0.0")
    assert rules.is_newer("1.0.0", "1.0.0rc1")
    assert not rules.is_newer("1.0.0rc2", "1.0.0")
    assert not rules.is_newer("not a version", "1.0")
    assert not rules.is_newer(None, "1.0")


def test_bump_names_the_largest_part_that_changed() -> None:
    assert rules.bump("1.2.3", "2.0.0") == "major"
    assert rules.bump("1.2.3", "1.3.0") == "minor"
    assert rules.bump("1.2.3", "1.2.4") == "patch"
    assert rules.bump("1.2.3", "1.2.3") is None


def test_autoupdate_off_allows_no_bump_and_major_allows_all() -> None:
    assert not rules.within_limit("patch", "off")
    assert rules.within_limit("major", "major")
    assert not rules.within_limit("major", "minor")


def test_freshness_follows_the_last_success() -> None:
    assert rules.freshness(CheckRecord(), NOW, live=False) == "unavailable"
    recent = CheckRecord(latest_version="1.0", last_successful_check_at=NOW - timedelta(hours=1))
    assert rules.freshness(recent, NOW, live=False) == "cached"
    old = CheckRecord(latest_version="1.0", last_successful_check_at=NOW - timedelta(days=2))
    assert rules.freshness(old, NOW, live=False) == "stale"
    assert rules.freshness(old, NOW, live=True) == "fresh"


def test_a_failed_first_check_is_the_unavailable_shape() -> None:
    record = rules.after_failure(CheckRecord(), "package index unavailable (URLError)", NOW)
    answer = rules.status(record, current="0.1.0", channel="pip-venv", now=NOW, live=False)
    assert answer == {
        "currentVersion": "0.1.0",
        "latestVersion": None,
        "checkedAt": None,
        "lastAttemptAt": "2026-11-30T12:00:00.000Z",
        "lastSuccessfulCheckAt": None,
        "lastError": "package index unavailable (URLError)",
        "updateAvailable": False,
        "checkSucceeded": False,
        "source": "none",
        "freshness": "unavailable",
        "installChannel": "pip-venv",
        "canSelfUpdate": False,
        "recommendedCommand": None,
    }


def test_an_available_update_recommends_the_channels_command() -> None:
    record = rules.after_success(CheckRecord(), "0.2.0", NOW)
    answer = rules.status(record, current="0.1.0", channel="pipx", now=NOW, live=True)
    assert answer["updateAvailable"] is True
    assert answer["recommendedCommand"] == "pipx upgrade memesh"
    assert (answer["source"], answer["freshness"], answer["checkSucceeded"]) == ("live", "fresh", True)


def test_notice_says_just_upgraded_before_anything_else() -> None:
    answer = rules.status(CheckRecord(), current="0.2.0", channel="pipx", now=NOW, live=False)
    assert rules.notice(answer, previous_version="0.1.0", limit="minor") == (
        "[memesh update] Now running memesh 0.2.0 (was 0.1.0)."
    )


def test_notice_names_an_update_beyond_the_autoupdate_limit() -> None:
    record = rules.after_success(CheckRecord(), "1.0.0", NOW)
    answer = rules.status(record, current="0.1.0", channel="pipx", now=NOW, live=True)
    text = rules.notice(answer, previous_version="0.1.0", limit="minor")
    assert text is not None
    assert text.startswith("[memesh update] memesh 1.0.0 is available")
    assert "beyond autoUpdate=minor" in text
    assert text.endswith("Update with: pipx upgrade memesh")


def test_no_notice_when_up_to_date() -> None:
    record = rules.after_success(CheckRecord(), "0.1.0", NOW)
    answer = rules.status(record, current="0.1.0", channel="pipx", now=NOW, live=True)
    assert rules.notice(answer, previous_version="0.1.0", limit="minor") is None
