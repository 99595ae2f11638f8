"""update_status with an injected lookup: never the network, always an answer, and one notice per session."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from memesh.adapters.update_check import CacheFile, UpdateNotifier
from memesh.context import CallContext
from memesh.core.update import Channel, CheckFailed, CheckRecord
from memesh.ops.update_status import CHECKS_OFF, session_notice, update_status


class MemoryCache:
    def __init__(self, record: CheckRecord | None = None) -> None:
        self.record = record or CheckRecord()
        self.writes = 0

    def read(self) -> CheckRecord:
        return self.record

    def write(self, record: CheckRecord) -> None:
        self.record = record
        self.writes += 1


@dataclass
class Source:
    """What update_status is handed: the cache, the lookup (None: checks off) and the install channel."""

    update_cache: MemoryCache
    update_fetch: Callable[[], str | None] | None
    channel: Channel = "pipx"

    def install_channel(self) -> Channel:
        return self.channel


def _status(
    cache: MemoryCache,
    fetch: Callable[[], str | None] | None,
    request: Any,
    ctx: CallContext,
    channel: Channel = "pipx",
) -> Any:
    """update_status of this installation (memesh 0.1.0)."""
    return update_status(Source(cache, fetch, channel), request, ctx=ctx)


def _offline() -> str:
    raise CheckFailed("package index unavailable (URLError)")


def test_a_live_answer_is_fresh_and_cached(ctx: CallContext) -> None:
    cache = MemoryCache()
    answer = _status(cache, lambda: "0.2.0", {}, ctx, channel="pipx").unwrap()
    assert (answer["freshness"], answer["source"], answer["updateAvailable"]) == ("fresh", "live", True)
    assert cache.record.latest_version == "0.2.0"


def test_with_no_network_the_answer_is_the_failed_unknown_shape(ctx: CallContext) -> None:
    answer = _status(MemoryCache(), _offline, {}, ctx, channel="pipx").unwrap()
    assert answer["checkSucceeded"] is False
    assert answer["lastError"] == "package index unavailable (URLError)"
    assert (answer["freshness"], answer["source"], answer["latestVersion"]) == ("unavailable", "none", None)


def test_a_failed_lookup_falls_back_to_the_cached_success(ctx: CallContext) -> None:
    cache = MemoryCache(CheckRecord("0.3.0", ctx.now - timedelta(hours=2), ctx.now - timedelta(hours=2)))
    answer = _status(cache, _offline, {}, ctx, channel="pipx").unwrap()
    assert (answer["freshness"], answer["source"], answer["checkSucceeded"]) == ("cached", "cache", False)
    assert answer["latestVersion"] == "0.3.0"


def test_cached_reads_never_call_the_lookup(ctx: CallContext) -> None:
    def refuse() -> str:
        raise AssertionError("looked up")

    cache = MemoryCache()
    answer = _status(cache, refuse, {"cached": True}, ctx, channel="pipx").unwrap()
    assert answer["freshness"] == "unavailable"
    assert cache.writes == 0


def test_checks_turned_off_say_so_without_recording_a_failure(ctx: CallContext) -> None:
    cache = MemoryCache()
    answer = _status(cache, None, {}, ctx, channel="unknown").unwrap()
    assert answer["lastError"] == CHECKS_OFF
    assert cache.writes == 0


def test_the_session_notice_reuses_a_recent_answer_and_records_the_version(ctx: CallContext) -> None:
    cache = MemoryCache(CheckRecord("0.2.0", ctx.now - timedelta(hours=1), ctx.now - timedelta(hours=1)))

    def refuse() -> str:
        raise AssertionError("looked up")

    text = session_notice(cache, refuse, current="0.1.0", channel="pipx", limit="minor", ctx=ctx)
    assert text == "[memesh update] memesh 0.2.0 is available; this is 0.1.0. Update with: pipx upgrade memesh"
    assert cache.record.last_seen_version == "0.1.0"


def test_the_notifier_hands_its_notice_out_once_and_never_waits() -> None:
    notifier = UpdateNotifier(lambda: "[memesh update] hello")
    assert notifier.take() is None  # not started: a call made now carries nothing
    notifier.start()
    assert notifier.wait(5)
    assert notifier.take() == "[memesh update] hello"
    assert notifier.take() is None


def test_a_check_that_raises_gives_no_notice() -> None:
    def broken() -> str | None:
        raise RuntimeError("boom")

    notifier = UpdateNotifier(broken)
    notifier.start()
    assert notifier.wait(5)
    assert notifier.take() is None


def test_the_cache_file_round_trips_and_an_unreadable_one_is_no_record(tmp_path: Path, ctx: CallContext) -> None:
    cache = CacheFile(tmp_path / "update-check.json")
    record = CheckRecord("0.2.0", ctx.now, ctx.now, None, "0.1.0")
    cache.write(record)
    assert cache.read() == record
    assert (tmp_path / "update-check.json").stat().st_mode & 0o777 == 0o600
    (tmp_path / "update-check.json").write_text("{oops")
    assert cache.read() == CheckRecord()


@pytest.mark.parametrize("value", ["0", "off", "false"])
def test_memesh_update_check_off_disables_the_lookup(monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    from memesh.adapters import update_check

    monkeypatch.setenv("MEMESH_UPDATE_CHECK", value)
    assert update_check.default_fetcher() is None


def test_a_distribution_the_index_does_not_know_gives_no_notice_in_any_session(ctx: CallContext) -> None:
    cache = MemoryCache()
    assert session_notice(cache, lambda: None, current="0.1.0", channel="pipx", limit="minor", ctx=ctx) is None
    assert (cache.record.last_error, cache.record.last_successful_check_at) == (None, ctx.now)
    later = replace(ctx, now=ctx.now + timedelta(days=2))
    assert session_notice(cache, lambda: None, current="0.1.0", channel="pipx", limit="minor", ctx=later) is None
