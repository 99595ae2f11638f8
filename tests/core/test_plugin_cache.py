"""Plugin-cache decisions from plain values: versions compared as numbers, one id per host, each host's updater."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from memesh.core import plugin_cache as pc


def test_an_older_cached_copy_is_a_fixable_warning_and_a_current_or_newer_one_passes() -> None:
    assert pc.verdict(pc.Installed("claude-code", "memesh", "0.9.0"), "0.10.0").status == "warn"
    assert pc.verdict(pc.Installed("claude-code", "memesh", "0.9.0"), "0.10.0").fixable
    assert pc.verdict(pc.Installed("codex", "memesh", "0.10.0"), "0.10.0").status == "pass"
    assert pc.verdict(pc.Installed("codex", "memesh", "1.0.0"), "0.10.0").status == "pass"


def test_a_cache_with_no_readable_version_is_a_fixable_warning() -> None:
    found = pc.verdict(pc.Installed("codex", "memesh", None), "0.1.0")
    assert (found.status, found.fixable) == ("warn", True) and "no readable version" in found.detail


def test_check_ids_are_host_specific_and_only_known_hosts_parse_back() -> None:
    assert [pc.check_id(host) for host in pc.HOSTS] == ["plugin-cache-claude-code", "plugin-cache-codex"]
    assert pc.host_of("plugin-cache-codex") == "codex"
    assert pc.host_of("plugin-cache-vim") is None and pc.host_of("config") is None


def test_each_host_refreshes_the_marketplace_then_the_plugin() -> None:
    assert pc.refresh_commands(pc.Installed("claude-code", "m", "0.1.0")) == [
        ["claude", "plugin", "marketplace", "update", "m"],
        ["claude", "plugin", "update", "memesh@m"],
    ]
    assert pc.refresh_commands(pc.Installed("codex", "m", "0.1.0"))[-1] == ["codex", "plugin", "add", "memesh@m"]


def test_versions_parse_as_three_numbers() -> None:
    assert pc.parse_version("4.10.11") == (4, 10, 11) and pc.parse_version("v1.2.3-rc.1") == (1, 2, 3)
    assert pc.parse_version("latest") is None and pc.parse_version(None) is None


def test_a_failed_connection_is_a_fixable_warning_for_the_fifteen_minutes_claude_code_skips_the_server() -> None:
    failed_at = datetime(2026, 12, 7, 4, 0, 0, tzinfo=UTC)
    failures = [pc.CachedFailure("plugin:memesh:memesh", failed_at)]
    during = pc.connection_verdict(failures, failed_at + timedelta(minutes=14, seconds=59))
    assert during is not None and (during.status, during.fixable) == ("warn", True)
    assert "04:15:00 UTC" in during.detail
    assert pc.connection_verdict(failures, failed_at + timedelta(minutes=15)) is None
    assert pc.connection_verdict([], failed_at) is None
